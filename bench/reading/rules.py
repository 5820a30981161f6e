#!/usr/bin/env python3
"""What each costly family of Tesseract's preparation rules still adds, in either mode.

  rules.py run  [--jobs 2] [--half tune|measure] [--out DIR]   # the readings (bench/ocr-quality/score.py)
  rules.py report [--out DIR]                                  # the table, from what `run` wrote
  rules.py turned --data DIR [--per-kind 1]                    # turned copies of a few pages of each kind

`turned` writes copies of the first pages of each kind and half turned 90, 180 and 270 degrees
(`bench/page-geometry.py`'s turn, in their own colours) with their truth and a manifest into
DIR; `run --data DIR` and `report --data DIR` then measure on them, since the bench's pages
rarely leave their way up in doubt.

`run` reads the 73 bench pages with `--text fast` and `--text accurate` as they are, then, for
each family, only the pages on which it fired (the page JSON's `preparation` says so) with the
family switched off: `reread` (the text the layout dropped read again) by leaving it out of
`--prepare`; `turn` (a page whose way up was in doubt read a second way, at its own size too
when scaled) with `--off-gloss BIN`, a build whose `PreparationPolicy.turnsDoubtedPages` is
empty (a policy value, not an option: the batch's fingerprint names the policy's version). A
page on which a family did not fire reads the same without it. (`compare`, a scaled page read
as it came too, was a family of its own until the policy's version 2: docs/reading.md.) `report` gives per family, mode, half and kind of page the mean F1 and CER with
the family and without, on the pages it fired on and on the whole half, and the seconds the
family's readings took (the page JSON's `timings`).
"""
import argparse, importlib.util, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCORE = os.path.join(ROOT, "bench", "ocr-quality", "score.py")
MODES = {"fast": "--text fast", "accurate": "--text accurate"}
NO_REREAD = "--prepare orientation,deskew,flatten,scale"
# Family -> (whether its off runs need --off-gloss, extra arguments, whether it fired, its timing stage).
FAMILIES = {
    "turn": (True, "", lambda p: "turn" in stages(p), "turn"),
    "reread": (False, NO_REREAD, lambda p: (p or {}).get("regionsReread", 0) > 0, "reread"),
}


def stages(preparation):
    timings = (preparation or {}).get("timings") or {}
    if isinstance(timings, dict):
        return timings
    return {s["name"]: s.get("milliseconds", 0) for s in timings}


def kind(page):
    """The kind of page a rule must help: the issue's forms, receipts, books, photos, tables, columns."""
    tags = set(page.get("tags", []))
    for tag, name in (("form", "forms"), ("receipt", "receipts"), ("photo", "photos"), ("table", "tables"),
                      ("multicol", "columns"), ("book", "books")):
        if tag in tags:
            return name
    return page["group"]


def python():
    venv = os.path.join(ROOT, ".build", "ocr-venv", "bin", "python")
    return venv if os.path.exists(venv) else sys.executable


def score(out, name, pages, env, extra, jobs, gloss, data):
    cmd = [python(), SCORE, "--data", data, "--jobs", str(jobs), "--json", os.path.join(out, name + ".json"),
           "--cache", os.path.join(out, "cache-" + name.removesuffix("-tune").removesuffix("-measure"))]
    if gloss:
        cmd += ["--gloss", gloss]
    for mode, args in MODES.items():
        cmd += ["--variant", f"{mode}={args} {extra}".strip()]
    for p in pages:
        cmd += ["--page", p]
    print("+", name, len(pages), "pages", file=sys.stderr, flush=True)
    subprocess.run(cmd, env=dict(os.environ, **env), check=True, stdout=subprocess.DEVNULL)


def load(out, name):
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return {r["name"]: r for r in json.load(f)["pages"]}


def manifest(data):
    with open(os.path.join(data, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def turned_copies(args):
    """Copies of the first `--per-kind` pages of each kind and half, turned three ways, in `--data`."""
    spec = importlib.util.spec_from_file_location("geometry", os.path.join(ROOT, "bench", "page-geometry.py"))
    geometry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(geometry)
    source = os.path.join(ROOT, ".build", "ocr-data")
    os.makedirs(args.data, exist_ok=True)
    chosen, copies = {}, []
    for page in sorted(manifest(source), key=lambda p: p["name"]):
        if "rotated" in page.get("tags", []):
            continue  # turned already: turning it again says nothing new
        key = (page["half"], kind(page))
        if len(chosen.setdefault(key, [])) < args.per_kind:
            chosen[key].append(page)
    for key in sorted(chosen):
        for page in chosen[key]:
            for quarters in (1, 2, 3):
                name = f"{page['name']}-turned-{quarters * 90}"
                image = name + ".png"
                geometry.turned(os.path.join(source, page["image"]), os.path.join(args.data, image), quarters)
                shutil.copyfile(os.path.join(source, page["truth"]), os.path.join(args.data, name + ".gt.txt"))
                copies.append({"name": name, "group": page["group"], "half": page["half"], "tags": page.get("tags", []),
                               "image": image, "truth": name + ".gt.txt"})
                print(name, file=sys.stderr)
    with open(os.path.join(args.data, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(copies, f, indent=1)


def run(args):
    os.makedirs(args.out, exist_ok=True)
    pages = [p["name"] for p in manifest(args.data) if not args.half or p["half"] == args.half]
    base_name = "base" + (f"-{args.half}" if args.half else "")
    score(args.out, base_name, pages, {}, "", args.jobs, args.gloss, args.data)
    base = load(args.out, base_name)
    for family, (policy, extra, fired, _) in FAMILIES.items():
        if args.family and family not in args.family:
            continue
        if policy and not args.off_gloss:
            print(f"- {family}: needs --off-gloss (a build with the family off in PreparationPolicy)", file=sys.stderr)
            continue
        on = [n for n in pages if n in base and any(fired(base[n][m].get("preparation")) for m in MODES)]
        if on:
            score(args.out, f"off-{family}" + (f"-{args.half}" if args.half else ""), on, {}, extra, args.jobs,
                  args.off_gloss if policy else args.gloss, args.data)


def merged(out, prefix):
    rows = {}
    for half in ("", "-tune", "-measure"):
        rows.update(load(out, prefix + half))
    return rows


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def report(args):
    pages = manifest(args.data)
    base = merged(args.out, "base")
    print("family | mode | half | kind | pages fired / of kind | F1 on -> off (fired) | CER on -> off (fired) |"
          " F1 delta of the kind | CER delta of the kind | family's seconds")
    for family, (_, _, fired, stage) in FAMILIES.items():
        off = merged(args.out, f"off-{family}")
        for mode in MODES:
            for half in ("tune", "measure"):
                here = [p for p in pages if p["half"] == half and p["name"] in base]
                kinds = sorted({kind(p) for p in here})
                for k in kinds + ["all"]:
                    group = [p for p in here if k == "all" or kind(p) == k]
                    hit = [p for p in group if p["name"] in off and fired(base[p["name"]][mode].get("preparation"))]
                    if not hit and k != "all":
                        continue

                    def value(p, metric, source):
                        row = (off if source == "off" and p in hit else base)[p["name"]][mode]
                        return row[metric]
                    f1_on, f1_off = mean(value(p, "f1", "on") for p in hit), mean(value(p, "f1", "off") for p in hit)
                    cer_on, cer_off = mean(value(p, "cer", "on") for p in hit), mean(value(p, "cer", "off") for p in hit)
                    df1 = mean(value(p, "f1", "on") - value(p, "f1", "off") for p in group)
                    dcer = mean(value(p, "cer", "on") - value(p, "cer", "off") for p in group)
                    seconds = sum(stages(base[p["name"]][mode].get("preparation")).get(stage, 0) for p in group) / 1000
                    print(f"{family} | {mode} | {half} | {k} | {len(hit)} / {len(group)} | {f1_on:.3f} -> {f1_off:.3f} |"
                          f" {cer_on:.3f} -> {cer_off:.3f} | {df1:+.4f} | {dcer:+.4f} | {seconds:.1f}")
        if args.pages:
            for p in pages:
                if p["name"] in off:
                    for mode in MODES:
                        if fired(base[p["name"]][mode].get("preparation")):
                            b, o = base[p["name"]][mode], off[p["name"]][mode]
                            print(f"  {family} {mode} {p['half']} {kind(p)} {p['name']}: F1 {b['f1']:.3f} -> {o['f1']:.3f},"
                                  f" CER {b['cer']:.3f} -> {o['cer']:.3f}, s {b['seconds']:.1f} -> {o['seconds']:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", choices=("run", "report", "turned"))
    ap.add_argument("--data", default=os.path.join(ROOT, ".build", "ocr-data"), help="the pages and their manifest")
    ap.add_argument("--per-kind", type=int, default=1, help="turned: pages of each kind and half")
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "rules-bench"))
    ap.add_argument("--half", choices=("tune", "measure"))
    ap.add_argument("--family", action="append", choices=list(FAMILIES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--gloss", help="the binary (default: this checkout's release build)")
    ap.add_argument("--off-gloss", help="run: the binary for the families switched off in the policy (turn)")
    ap.add_argument("--pages", action="store_true", help="report: each fired page too")
    args = ap.parse_args()
    {"run": run, "report": report, "turned": turned_copies}[args.action](args)


if __name__ == "__main__":
    main()
