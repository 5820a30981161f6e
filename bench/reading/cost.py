#!/usr/bin/env python3
"""The cost of a Gloss reading against RapidOCR's, in CPU time on one thread, per kind of page and half.

  cost.py [--gloss BIN] [--args "--text accurate"] [--sample N] [--group G] [--page P]
          [--half tune|measure] [--json OUT] [--rapid-python PY] [--no-cache] [--reference rapid|cli|none]

Both readers run on one thread (`OMP_THREAD_LIMIT=1` for Gloss; RapidOCR on one ONNX Runtime
thread, as bench/neural/rapid.py makes it). The figure is CPU time (user + system), not wall
time, so a shared, loaded machine moves it little.

- **Gloss**: one `gloss ocr PAGE ARGS` process a page; its CPU is the child's rusage. A process
  starts, loads Tesseract's model and packs the neural networks' weights before it reads: that
  fixed cost is measured on a blank 64 x 64 page (median of three runs) and **subtracted** from
  every page ("net"; the raw figure is kept in the JSON).
- **RapidOCR**: one process reads every page (`cost.py rapid`, run by the venv's Python); a
  page's CPU is `time.process_time()` around its call, so its **model loading is excluded**
  (reported apart, once). Its results are cached by the pages' hashes and RapidOCR's version in
  `.build/reading-cost/rapid.json` (the reference does not change between Gloss builds).

The table: per group and half, pages, Gloss's and RapidOCR's mean CPU seconds a page, and the
ratio of their sums (the issue's target: 0.5 or under); Gloss's F1 / CER on those pages (so a
cheaper build can be checked against the same pages' reading); and where Gloss's wall time went
(the page JSON's `timings`, summed). `--sample N` takes the first N pages of each group and half.
"""
import argparse, hashlib, json, os, resource, shlex, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr-quality"))
sys.path.insert(0, os.path.join(ROOT, "bench", "neural"))
CACHE = os.path.join(ROOT, ".build", "reading-cost")


def child_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def gloss_page(binary, image, argv):
    """(CPU seconds, page JSON or None, error) of one `gloss ocr` process on one thread."""
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    before = child_cpu()
    proc = subprocess.run([binary, "ocr", image] + argv, capture_output=True, env=env)
    cpu = child_cpu() - before
    if proc.returncode != 0:
        return cpu, None, proc.stderr.decode("utf-8", "replace")[-300:]
    try:
        return cpu, json.loads(proc.stdout), None
    except ValueError as error:
        return cpu, None, f"not JSON: {error}"


def fixed_cost(binary, argv):
    """Median CPU of `gloss ocr` on a blank 64 x 64 page: start-up and model loading."""
    from PIL import Image
    with tempfile.TemporaryDirectory() as folder:
        blank = os.path.join(folder, "blank.png")
        Image.new("L", (64, 64), 255).save(blank)
        return statistics.median(gloss_page(binary, blank, argv)[0] for _ in range(3))


def rapid_main(images):
    """Run inside the venv with rapidocr: one JSON line for the load, then one per page. With
    no images named, the pages' paths come on standard input, one a line, each answered before
    the next is read (`RapidBesideGloss`)."""
    import rapid
    started = time.process_time()
    ocr = rapid.engine()
    print(json.dumps({"load": time.process_time() - started}), flush=True)
    for image in images or (line.rstrip("\n") for line in sys.stdin):
        started = time.process_time()
        result = rapid.read(ocr, image)
        print(json.dumps({"image": image, "cpu": time.process_time() - started, "lines": len(result["lines"]),
                          "det": result["det"], "cls": result["cls"], "rec": result["rec"]}), flush=True)


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def rapid_costs(python, pages, data, use_cache):
    """{page name: CPU seconds} and the load's CPU, from the cache where it holds the page."""
    version = subprocess.run([python, "-c", "import rapidocr, onnxruntime; print(rapidocr.__version__ if hasattr(rapidocr, '__version__') else '?', onnxruntime.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    path = os.path.join(CACHE, "rapid.json")
    cache = {}
    if use_cache and os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            cache = json.load(f)
    if cache.get("version") != version:
        cache = {"version": version, "pages": {}, "load": None}
    keys = {p["name"]: sha(os.path.join(data, p["image"])) + " " + version for p in pages}
    todo = [p for p in pages if keys[p["name"]] not in cache["pages"]]
    if todo:
        images = [os.path.join(data, p["image"]) for p in todo]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        proc = subprocess.run([python, os.path.abspath(__file__), "rapid"] + images, capture_output=True, text=True, env=env)
        rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        if not rows:
            sys.exit(f"RapidOCR failed: {proc.stderr[-600:]}")
        cache["load"] = rows[0]["load"]
        by_image = {r["image"]: r for r in rows[1:]}
        for p in todo:
            row = by_image.get(os.path.join(data, p["image"]))
            if row:
                cache["pages"][keys[p["name"]]] = row
        os.makedirs(CACHE, exist_ok=True)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(cache, f)
        os.replace(path + ".tmp", path)
    return {p["name"]: cache["pages"][keys[p["name"]]] for p in pages if keys[p["name"]] in cache["pages"]}, cache["load"]


class RapidBesideGloss:
    """RapidOCR kept loaded in one process that reads a page when asked, so each page is read by
    RapidOCR and by Gloss one right after the other. The machine's speed drifts by up to a fifth
    within a run (7 December 2026: `RecogniserBench 320 8 5` moved between 14.8 and 17.9 ms a
    line from minute to minute, the same binary); read one reader's pages all first and the
    other's after, and the ratio takes the drift. Side by side it cancels page by page."""

    def __init__(self, python):
        self.proc = subprocess.Popen([python, os.path.abspath(__file__), "rapid"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
        self.load = self.answer()["load"]

    def answer(self):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("RapidOCR's process ended")
            if line.startswith("{"):
                return json.loads(line)

    def read(self, image):
        self.proc.stdin.write(image + "\n")
        self.proc.stdin.flush()
        return self.answer()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "rapid":
        return rapid_main(sys.argv[2:])
    import score
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, ".build", "ocr-data"))
    ap.add_argument("--gloss", default=os.environ.get("GLOSS", os.path.join(ROOT, ".build", "release", "gloss")))
    ap.add_argument("--args", default="--text accurate", help="gloss ocr's arguments (default: --text accurate)")
    ap.add_argument("--rapid-python", default=os.path.join(ROOT, ".build", "venv", "bin", "python"))
    ap.add_argument("--group", action="append")
    ap.add_argument("--page", action="append")
    ap.add_argument("--half", choices=("tune", "measure"))
    ap.add_argument("--sample", type=int, help="the first N pages of each group and half")
    ap.add_argument("--json", help="write every page's figures here")
    ap.add_argument("--baseline", help="another gloss, run on each page right before this one (side by side, "
                                       "so the machine's drift cancels); its CPU, F1 and CER are given too")
    ap.add_argument("--no-cache", action="store_true", help="read RapidOCR's pages again")
    ap.add_argument("--side-by-side", action="store_true",
                    help="read each page with RapidOCR right before Gloss (RapidOCR kept loaded), not from the "
                         "cache, so the machine's drift cancels in the ratio (the figure for the 0.5x target)")
    ap.add_argument("--reference", choices=("rapid", "cli", "none"), default="rapid",
                    help="what Gloss is set against: RapidOCR (default), the tesseract CLI (one process a "
                         "page, OMP_THREAD_LIMIT=1, its start-up included, as in bench/pipeline.sh), or nothing")
    args = ap.parse_args()

    pages = score.selected_pages(args)
    if args.half:
        pages = [p for p in pages if p["half"] == args.half]
    if args.sample:
        taken, kept = {}, []
        for p in pages:
            key = (p["group"], p["half"])
            if taken.get(key, 0) < args.sample:
                taken[key] = taken.get(key, 0) + 1
                kept.append(p)
        pages = kept
    argv = shlex.split(args.args)
    binary = os.path.abspath(args.gloss)
    beside = RapidBesideGloss(args.rapid_python) if args.side_by_side and args.reference == "rapid" else None
    if beside:
        rapid, load = {}, beside.load
    elif args.reference == "rapid":
        rapid, load = rapid_costs(args.rapid_python, pages, args.data, not args.no_cache)
    else:
        rapid, load = {}, 0.0
    if args.reference == "cli":
        for p in pages:
            before = child_cpu()
            proc = subprocess.run(["tesseract", os.path.join(args.data, p["image"]), "-"], capture_output=True,
                                  env=dict(os.environ, OMP_THREAD_LIMIT="1"))
            rapid[p["name"]] = {"cpu": child_cpu() - before, "text": proc.stdout.decode("utf-8", "replace")}
    fixed = fixed_cost(binary, argv)
    baseline = os.path.abspath(args.baseline) if args.baseline else None
    baseline_fixed = fixed_cost(baseline, argv) if baseline else 0.0
    rows = []
    for p in pages:
        if beside:
            rapid[p["name"]] = beside.read(os.path.join(args.data, p["image"]))
        if baseline:
            base_cpu, base_page, _ = gloss_page(baseline, os.path.join(args.data, p["image"]), argv)
        cpu, page, error = gloss_page(binary, os.path.join(args.data, p["image"]), argv)
        with open(os.path.join(args.data, p["truth"]), encoding="utf-8") as f:
            truth = f.read()
        text = (page or {}).get("text") or ""
        row = {"name": p["name"], "group": p["group"], "half": p["half"], "gloss_raw": cpu, "gloss": max(0.0, cpu - fixed),
               "rapid": rapid.get(p["name"], {}).get("cpu"), "error": error,
               "f1": score.bag_f1(score.tokens(truth), score.tokens(text))[2], "cer": score.cer(truth, text),
               "reference": ({"f1": score.bag_f1(score.tokens(truth), score.tokens(rapid[p["name"]]["text"]))[2],
                              "cer": score.cer(truth, rapid[p["name"]]["text"])} if "text" in rapid.get(p["name"], {}) else None),
               "timings": (page or {}).get("timings") or {},
               "preparation": (page or {}).get("preparation") or {},
               "readers": [l.get("reader") for l in (page or {}).get("lines", [])],
               "review": (page or {}).get("review") or {}}
        if baseline:
            with open(os.path.join(args.data, p["truth"]), encoding="utf-8") as f:
                base_text = (base_page or {}).get("text") or ""
                row["baseline"] = {"gloss": max(0.0, base_cpu - baseline_fixed), "f1": score.bag_f1(score.tokens(truth), score.tokens(base_text))[2],
                                   "cer": score.cer(truth, base_text), "timings": (base_page or {}).get("timings") or {},
                                   "same_text": base_text == text}
        rows.append(row)
        print(f"{p['name'][:34]:34} {p['half']:7} gloss {row['gloss']:6.2f} s  {args.reference} {row['rapid'] or 0:6.2f} s  "
              f"ratio {row['gloss'] / row['rapid'] if row['rapid'] else float('nan'):5.2f}  F1 {row['f1']:.3f} CER {row['cer']:.3f}"
              + (f"  ({args.reference} F1 {row['reference']['f1']:.3f} CER {row['reference']['cer']:.3f})" if row["reference"] else "")
              + (f"  error: {error}" if error else ""), file=sys.stderr, flush=True)

    if beside:
        beside.close()
    reference = {"rapid": f"RapidOCR model load {load:.2f} s CPU (excluded)" + (", read side by side" if beside else ""),
                 "cli": "the tesseract CLI one process a page (start-up included)", "none": "no reference"}[args.reference]
    print(f"gloss ocr {args.args}: {binary}; fixed cost {fixed:.2f} s CPU a process (subtracted); {reference}")
    # The CLI's own text is scored too, so `fast`'s F1 is set against the reference's.
    scored = bool(rows) and all(r["reference"] for r in rows)
    print(f"{'group':10} {'half':8} {'pages':>5} {'gloss s':>8} {args.reference + ' s':>8} {'ratio':>6} {'F1':>6} {'CER':>6}"
          + (f" {args.reference + ' F1':>8} {args.reference + ' CER':>8}" if scored else ""))
    def line(label, half, chosen):
        if not chosen:
            return
        g, r = sum(x["gloss"] for x in chosen), sum(x["rapid"] or 0 for x in chosen)
        n = len(chosen)
        print(f"{label:10} {half:8} {n:5d} {g / n:8.2f} {r / n:8.2f} {g / r if r else float('nan'):6.2f} "
              f"{sum(x['f1'] for x in chosen) / n:6.3f} {sum(x['cer'] for x in chosen) / n:6.3f}"
              + (f" {sum(x['reference']['f1'] for x in chosen) / n:8.3f} {sum(x['reference']['cer'] for x in chosen) / n:8.3f}"
                 if scored else ""))
    if baseline:
        print(f"baseline {baseline}, side by side: its CPU / F1 / CER -> this build's, per half")
        for half in ("tune", "measure"):
            chosen = [r for r in rows if r["half"] == half]
            if chosen:
                n = len(chosen)
                mean = lambda key, side: sum((r["baseline"] if side else r)[key] for r in chosen) / n
                print(f"  {half:8} {n:3d} pages: CPU {mean('gloss', 1):.2f} -> {mean('gloss', 0):.2f} s a page "
                      f"({mean('gloss', 0) / mean('gloss', 1):.3f}x), F1 {mean('f1', 1):.3f} -> {mean('f1', 0):.3f}, "
                      f"CER {mean('cer', 1):.3f} -> {mean('cer', 0):.3f}")
                stage = lambda name, side: sum(((r["baseline"] if side else r).get("timings") or {}).get(name, 0) for r in chosen) / 1000
                print(f"           wall s summed: detect {stage('detect', 1):.1f} -> {stage('detect', 0):.1f}, "
                      f"recognize {stage('recognize', 1):.1f} -> {stage('recognize', 0):.1f}; "
                      f"same text on {sum(1 for r in chosen if r['baseline'].get('same_text'))} of {n} pages")
    for half in ("tune", "measure"):
        for group in sorted({r["group"] for r in rows}):
            line(group, half, [r for r in rows if r["group"] == group and r["half"] == half])
        line("ALL", half, [r for r in rows if r["half"] == half])
    stages = {}
    for r in rows:
        for stage, ms in r["timings"].items():
            if isinstance(ms, (int, float)):
                stages[stage] = stages.get(stage, 0) + ms / 1000
    if stages:
        print("Gloss's wall time by stage (s, summed): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": args.args, "gloss": binary, "fixed": fixed, "rapid_load": load, "pages": rows}, f, indent=1)


if __name__ == "__main__":
    main()
