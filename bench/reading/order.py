#!/usr/bin/env python3
"""Choose the fused page's order threshold (`FusionPolicy.pageReaderOrderFrom`) from two runs.

  order.py READER_DIR GEOMETRY_DIR [--data DIR] [--pages]

READER_DIR and GEOMETRY_DIR hold `gloss ocr IMAGE --text accurate` page JSONs (NAME.json) made
by two builds: one with `pageReaderOrderFrom = 0` (Tesseract's order always), one with it above
1 (the geometry always). The readings are the same; only the order differs. Per page the
signal is the share of the fused lines whose reader is Tesseract; for each threshold the page
takes the first run's CER where the share reaches it, else the second's. Prints the mean CER
per half for each threshold (choose on tune, report measure), and per group at --t.
"""
import argparse, collections, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ocr-quality"))
import score  # noqa: E402


def mean(values):
    return sum(values) / len(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("reader_dir")
    ap.add_argument("geometry_dir")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", ".build", "ocr-data"))
    ap.add_argument("--t", type=float, default=0.6)
    ap.add_argument("--pages", action="store_true")
    args = ap.parse_args()
    rows = []
    for page in json.load(open(os.path.join(args.data, "manifest.json"))):
        try:
            runs = [json.load(open(os.path.join(d, page["name"] + ".json"))) for d in (args.reader_dir, args.geometry_dir)]
        except (OSError, ValueError):
            continue
        truth = open(os.path.join(args.data, page["truth"]), encoding="utf-8").read()
        lines = runs[0].get("lines", [])
        share = sum(1 for line in lines if line.get("reader") == "tesseract") / len(lines) if lines else 0.0
        rows.append(dict(name=page["name"], group=page["group"], half=page["half"], share=share,
                         reader=score.cer(truth, runs[0].get("text") or ""), geometry=score.cer(truth, runs[1].get("text") or "")))
    chosen = lambda r, t: r["reader"] if r["share"] >= t else r["geometry"]
    if args.pages:
        for r in sorted(rows, key=lambda r: r["share"]):
            print("%-34s %-9s %-7s share %.2f  reader order %.3f  geometry %.3f" % (r["name"], r["group"], r["half"], r["share"], r["reader"], r["geometry"]))
    print(f"{len(rows)} pages; mean CER by threshold")
    for t in (0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01):
        print("  %.2f  " % t + "  ".join("%s %.3f" % (h, mean([chosen(r, t) for r in rows if r["half"] == h])) for h in ("tune", "measure")))
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["group"], r["half"])].append(r)
        groups[("ALL", r["half"])].append(r)
    print(f"by group at {args.t}: chosen, reader order, geometry")
    for key in sorted(groups):
        rs = groups[key]
        print("  %-10s %-8s %2d  %.3f  %.3f  %.3f" % (key[0], key[1], len(rs), mean([chosen(r, args.t) for r in rs]),
                                                   mean([r["reader"] for r in rs]), mean([r["geometry"] for r in rs])))


if __name__ == "__main__":
    main()
