#!/usr/bin/env python3
"""PP-OCRv6 in Gloss against ONNX Runtime and Tesseract on the OCR-quality pages (README.md).

Per page of DATA/manifest.json, four readers:
  rapid     RapidOCR at its defaults, ONNX Runtime on one thread (rapid.py, models loaded once)
  cli       the `tesseract` CLI, default settings, OMP_THREAD_LIMIT=1
  neural    `gloss ocr IMAGE --engine neural`, when the binary accepts it
  gloss     `gloss ocr IMAGE` with Tesseract (`--engine tesseract` when accepted)
scored with bench/ocr-quality/score.py's rules (bag-of-words F1, CER), with seconds per page
split into detection and recognition where the reader reports them, per group and per half
(tune / measure). Agreement: the share of RapidOCR's lines that Gloss's neural engine reads
with the same text, lines matched by box overlap.

  bench.py [--data DIR] [--gloss BIN] [--group G ...] [--page SUBSTRING ...] [--half H]
           [--jobs 2] [--json OUT] [--no-cache] [--python VENV_PYTHON]
"""
import concurrent.futures, hashlib, json, os, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr-quality"))
import score  # noqa: E402  (the scoring rules and the caches of bench/ocr-quality)
sys.path.insert(0, HERE)
import rapid as rapid_reader  # noqa: E402

READERS = ("rapid", "cli", "neural", "gloss")
# "agreement": Gloss reads the page file as the user hands it (prepared: turned, at up to 300
# ppi, lines cut from the full page); "same_input": Gloss reads the very picture RapidOCR's
# stages read (`rapid.py --bounded`), with `--prepare none`.
AGREEMENTS = ("agreement", "same_input")
SAME_INPUT_ARGS = "--engine neural --prepare none"
# A RapidOCR line and a Gloss line are the same line when their boxes overlap this much
# (intersection over union); each RapidOCR line takes its best-overlapping Gloss line.
SAME_LINE_IOU = 0.5


def iou(a, b):
    """Intersection over union of two [x0, y0, x1, y1] boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def same_text(a, b):
    return " ".join(a.split()) == " ".join(b.split())


def agreement(rapid_lines, gloss_lines):
    """(RapidOCR lines, of them matched by a Gloss line's box, of them read identically)."""
    matched = same = 0
    for line in rapid_lines:
        best = max(gloss_lines, key=lambda g: iou(line["box"], g["box"]), default=None)
        if best is not None and iou(line["box"], best["box"]) >= SAME_LINE_IOU:
            matched += 1
            same += same_text(line["text"], best["text"])
    return len(rapid_lines), matched, same


def rapid_key(page, data, version_key):
    """The cache key of RapidOCR's reading of a page: the image, the versions, how it is decoded."""
    from PIL import Image
    with Image.open(os.path.join(data, page["image"])) as im:
        decoded = " pillow-rgb" if rapid_reader.misread(im.mode) else ""
    return hashlib.sha256(f"{page['sha']} {version_key}{decoded}".encode()).hexdigest()


def run_rapid(pages, data, cache, python, jobs, version_key):
    """RapidOCR's results per page name; uncached pages are read by `jobs` processes."""
    results, todo = {}, []
    for page in pages:
        page["rapid_key"] = rapid_key(page, data, version_key)
        hit = cache.get("rapid", page["rapid_key"])
        if hit:
            results[page["name"]] = hit
        else:
            todo.append(page)
    if not todo:
        return results
    slices = [todo[i::max(1, jobs)] for i in range(max(1, jobs))]

    def work(chunk):
        if not chunk:
            return
        images = [os.path.join(data, p["image"]) for p in chunk]
        by_image = {os.path.join(data, p["image"]): p for p in chunk}
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_THREAD_LIMIT="1")
        proc = subprocess.Popen([python, os.path.join(HERE, "rapid.py")] + images, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, text=True)
        for line in proc.stdout:
            out = json.loads(line)
            page = by_image[out["image"]]
            out["image"] = page["image"]
            results[page["name"]] = out
            if not out["error"]:
                cache.put("rapid", page["rapid_key"], out)
        if proc.wait() != 0:
            print(f"warning: rapid.py failed: {proc.stderr.read()[-400:]}", file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(slices)) as pool:
        list(pool.map(work, slices))
    return results


def run_bounded(pages, data, cache, python):
    """The picture RapidOCR's stages read, per page name: {"out": PNG, "ratio_w", "ratio_h", ...}.

    Written once per RapidOCR cache key under CACHE/rapid-input/ (rapid.py --bounded): the page
    as RapidOCR's loader decodes it, resized within Global.min_side_len...max_side_len."""
    results, todo = {}, []
    for page in pages:
        png = os.path.join(cache.root, "rapid-input", page["rapid_key"] + ".png")
        hit = cache.get("rapid-input", page["rapid_key"])
        if hit and os.path.exists(png):
            results[page["name"]] = hit
        else:
            todo.append((page, png))
    if todo:
        os.makedirs(os.path.join(cache.root, "rapid-input"), exist_ok=True)
        argv = [a for page, png in todo for a in (os.path.join(data, page["image"]), png)]
        proc = subprocess.run([python, os.path.join(HERE, "rapid.py"), "--bounded"] + argv, capture_output=True, text=True)
        by_out = {png: page for page, png in todo}
        for line in proc.stdout.splitlines():
            out = json.loads(line)
            page = by_out[out["out"]]
            if out["error"]:
                print(f"warning: {page['name']}: no RapidOCR input: {out['error']}", file=sys.stderr)
                continue
            out["sha"] = score.file_hash(out["out"])
            results[page["name"]] = out
            cache.put("rapid-input", page["rapid_key"], out)
        if proc.returncode != 0:
            print(f"warning: rapid.py --bounded failed: {proc.stderr[-400:]}", file=sys.stderr)
    return results


def scaled_lines(lines, ratio_w, ratio_h):
    """Lines read on RapidOCR's picture, their boxes carried to the page's pixels as RapidOCR
    carries its own (`map_boxes_to_original`: x times ratio_w, y times ratio_h)."""
    return [{**l, "box": [l["box"][0] * ratio_w, l["box"][1] * ratio_h, l["box"][2] * ratio_w, l["box"][3] * ratio_h]}
            for l in lines]


def box(b):
    return [b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]]


def run_gloss_json(image, variant, cache, image_sha):
    """`gloss ocr IMAGE ARGS`: text, words, lines with boxes, stage timings; cached like score.py."""
    key = hashlib.sha256(f"{image_sha} {variant['binary_sha']} {variant['args']} lines".encode()).hexdigest()
    hit = cache.get("gloss-lines", key)
    if hit:
        return hit
    page, result = score.read_gloss(image, variant)
    result.update(lines=[], det=None, rec=None)
    if page is None:
        return result
    result["lines"] = [{"text": l.get("text", ""), "box": box(l["box"])} for l in page.get("lines", []) if l.get("box")]
    timings = page.get("timings") or {}
    # The neural analyzer records "detect" and "recognize" (milliseconds); Tesseract has neither.
    if "detect" in timings:
        result["det"] = timings["detect"] / 1000
    if "recognize" in timings:
        result["rec"] = timings["recognize"] / 1000
    cache.put("gloss-lines", key, result)
    return result


def variant(binary, args):
    return {"binary": binary, "binary_sha": score.file_hash(binary), "args": args, "argv": args.split()}


def scored(truth, truth_tokens, text, words=None):
    found = score.tokens(" ".join(words)) if words else score.tokens(text)
    p, r, f1 = score.bag_f1(truth_tokens, found)
    return {"f1": f1, "precision": p, "recall": r, "cer": score.cer(truth, text)}


def summary(rows, readers):
    out = {"pages": len(rows)}
    for n in readers:
        # A page the reader failed on is counted apart, not as F1 0: a half-built engine
        # that fails on some pages still shows how it reads the others.
        got = [r[n] for r in rows if r.get(n) and not r[n].get("error")]
        out[n] = {k: score.mean(g.get(k) for g in got) for k in ("f1", "cer", "seconds", "det", "rec")}
        out[n]["failed"] = sum(1 for r in rows if r.get(n) and r[n].get("error"))
    for kind in AGREEMENTS:
        lines = [r[kind] for r in rows if r.get(kind)]
        if lines:
            total, matched, same = (sum(a[k] for a in lines) for k in ("lines", "matched", "same"))
            out[kind] = {"lines": total, "matched": matched, "same": same, "share": same / total if total else None}
    return out


def main():
    ap = score.page_options(__doc__)
    ap.add_argument("--python", default=os.environ.get("PPOCR_PYTHON", os.path.join(ROOT, ".build", "venv", "bin", "python")),
                    help="the Python with rapidocr 3.10.0 and onnxruntime (make setup's .build/venv)")
    ap.add_argument("--half", choices=("tune", "measure"), help="only this half")
    ap.add_argument("--same-input-only", action="store_true",
                    help="of Gloss, read only RapidOCR's picture (the `same` agreement): no prepared or Tesseract column")
    args = ap.parse_args()

    pages = score.selected_pages(args)
    if any("half" not in p for p in pages):
        sys.exit(f"{args.data}/manifest.json has no tune/measure halves: make it again (sh bench/ocr-quality/make.sh)")
    pages = [p for p in pages if not args.half or p["half"] == args.half]
    if not pages:
        sys.exit("no page matches")
    for p in pages:
        p["sha"] = p.get("sha256") or score.file_hash(os.path.join(args.data, p["image"]))
    if not os.access(args.gloss, os.X_OK):
        sys.exit(f"no gloss binary at {args.gloss} (build it, or pass --gloss / GLOSS)")
    gloss_path = os.path.abspath(args.gloss)
    probe = min((os.path.join(args.data, p["image"]) for p in pages), key=os.path.getsize)
    neural = variant(gloss_path, "--engine neural")
    neural_ok = score.accepts(neural, probe)
    same_input = variant(gloss_path, SAME_INPUT_ARGS)
    tesseract = variant(gloss_path, "--engine tesseract")
    if not score.accepts(tesseract, probe):
        tesseract = variant(gloss_path, "")
    readers = [n for n in READERS if (n != "neural" or neural_ok) and not (args.same_input_only and n in ("neural", "gloss"))]
    if not neural_ok:
        print(f"note: {gloss_path} refuses --engine neural: no neural column", file=sys.stderr)
    rapid_version = subprocess.run([args.python, "-c", "from importlib.metadata import version as v; "
                                    "print('rapidocr', v('rapidocr'), 'onnxruntime', v('onnxruntime'))"],
                                   capture_output=True, text=True)
    if rapid_version.returncode != 0:
        sys.exit(f"no rapidocr in {args.python} (make setup installs it): {rapid_version.stderr[-300:]}")
    rapid_versions = rapid_version.stdout.strip() + " defaults intra_op=1 inter_op=1"
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    cache = score.Cache(args.cache, not args.no_cache)

    started = time.monotonic()
    rapid = run_rapid(pages, args.data, cache, args.python, args.jobs, rapid_versions)
    inputs = run_bounded(pages, args.data, cache, args.python) if neural_ok else {}

    def read(page):
        image = os.path.join(args.data, page["image"])
        with open(os.path.join(args.data, page["truth"]), encoding="utf-8") as f:
            truth = f.read()
        truth_tokens = score.tokens(truth)
        row = {"name": page["name"], "group": page["group"], "half": page["half"], "truth_words": len(truth_tokens)}
        r = rapid.get(page["name"])
        if r:
            text = "\n".join(l["text"] for l in r["lines"])
            row["rapid"] = scored(truth, truth_tokens, text) | {
                "seconds": r["seconds"], "det": r["det"], "rec": r["rec"] + r["cls"], "cls": r["cls"],
                "lines": len(r["lines"]), "error": r["error"]}
        cli = score.run_cli(image, cache, page["sha"], version, "")
        row["cli"] = scored(truth, truth_tokens, cli["text"]) | {"seconds": cli["seconds"], "det": None, "rec": None,
                                                                 "error": cli["error"]}
        if "gloss" in readers:
            g = run_gloss_json(image, tesseract, cache, page["sha"])
            row["gloss"] = scored(truth, truth_tokens, g["text"], g["words"]) | {
                "seconds": g["seconds"], "det": g["det"], "rec": g["rec"], "error": g["error"]}
        if "neural" in readers:
            n = run_gloss_json(image, neural, cache, page["sha"])
            row["neural"] = scored(truth, truth_tokens, n["text"], n["words"]) | {
                "seconds": n["seconds"], "det": n["det"], "rec": n["rec"], "error": n["error"]}
            if r and not n["error"]:
                total, matched, same = agreement(r["lines"], n["lines"])
                row["agreement"] = {"lines": total, "matched": matched, "same": same}
        if neural_ok:
            picture = inputs.get(page["name"])
            if r and picture:
                s = run_gloss_json(picture["out"], same_input, cache, picture["sha"])
                if not s["error"]:
                    lines = scaled_lines(s["lines"], picture["ratio_w"], picture["ratio_h"])
                    total, matched, same = agreement(r["lines"], lines)
                    row["same_input"] = {"lines": total, "matched": matched, "same": same}
                    row["same_input_lines"] = lines
                    row["input"] = picture
        return row

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(read, pages))
    wall = time.monotonic() - started

    fmt = score.fmt
    head = f"{'page':30} {'group':9} {'half':7} {'words':>5}" + "".join(f" {n[:6] + ' F1':>9}" for n in readers) \
        + "".join(f" {n[:6] + ' CER':>10}" for n in readers) + "".join(f" {n[:6] + ' s':>8}" for n in readers) \
        + f" {'agree':>6} {'same':>6}"
    print(head)
    for row in rows:
        line = f"{row['name'][:30]:30} {row['group'][:9]:9} {row['half']:7} {row['truth_words']:5d}"
        line += "".join(f" {fmt(row[n]['f1'] if row.get(n) else None, 9)}" for n in readers)
        line += "".join(f" {fmt(row[n]['cer'] if row.get(n) else None, 10)}" for n in readers)
        line += "".join(f" {fmt(row[n]['seconds'] if row.get(n) else None, 8, 2)}" for n in readers)
        for kind in AGREEMENTS:
            a = row.get(kind)
            line += f" {fmt(a['same'] / a['lines'] if a and a['lines'] else None, 6)}"
        errors = [f"{n}: {row[n]['error'].strip()[:50]}" for n in readers if row.get(n) and row[n].get("error")]
        print(line + ("  ! " + "; ".join(errors) if errors else ""))

    sets = {}
    for g in sorted({r["group"] for r in rows}):
        for h in ("tune", "measure"):
            sets[f"{g} {h}"] = [r for r in rows if r["group"] == g and r["half"] == h]
    for h in ("tune", "measure"):
        sets[f"ALL {h}"] = [r for r in rows if r["half"] == h]
    sets["ALL"] = rows
    summaries = {k: summary(v, readers) for k, v in sets.items() if v}
    print()
    head = f"{'means':22} {'pages':>5}" + "".join(f" {n[:6] + ' F1':>9} {'CER':>6} {'s':>6} {'det':>6} {'rec':>6}" for n in readers) \
        + f" {'agree':>6} {'same':>6} {'lines':>6}"
    print(head)
    for label, s in summaries.items():
        line = f"{label:22} {s['pages']:5d}"
        for n in readers:
            m = s[n]
            line += f" {fmt(m['f1'], 9)} {fmt(m['cer'], 6)} {fmt(m['seconds'], 6, 2)} {fmt(m['det'], 6, 2)} {fmt(m['rec'], 6, 2)}"
        a, b = s.get("agreement"), s.get("same_input")
        line += f" {fmt(a['share'] if a else None, 6)} {fmt(b['share'] if b else None, 6)} {(a or b)['lines'] if a or b else '-':>6}"
        print(line)
    failed = {n: summaries["ALL"][n]["failed"] for n in readers if summaries["ALL"][n]["failed"]}
    if failed:
        print("\nfailed pages (left out of the means): " + ", ".join(f"{n} {k}" for n, k in failed.items()))
    print(f"\n{len(rows)} pages in {wall:.0f} s ({args.jobs} at a time; a shared machine: compare seconds within one run)"
          f"; {rapid_versions}; {version}; gloss = {gloss_path} (sha256 {tesseract['binary_sha'][:12]})"
          f", Tesseract column {tesseract['args'] or 'default'!r}" + ("" if neural_ok else "; no --engine neural"))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"rapidocr": rapid_versions, "tesseract": version, "gloss": gloss_path,
                       "gloss_sha256": tesseract["binary_sha"], "neural": neural_ok, "readers": readers,
                       "pages": rows, "summaries": summaries}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
