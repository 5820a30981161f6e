#!/usr/bin/env python3
"""Put the F1 of several score.py --json results side by side, page by page.

  compare.py LABEL=RESULT.json[:COLUMN] ...   [--group G ...] [--changed 0.005]

COLUMN is `cli` or a variant name (default: the file's first variant). Prints each page's F1
per column, the per-group and overall means, and the mean of the best column per page (what
choosing per page could reach). --changed hides pages whose columns all agree within that much.
"""
import argparse, json, sys


def load(spec):
    label, _, rest = spec.partition("=")
    path, column = rest, ""
    if not rest.endswith(".json") and ":" in rest:
        path, column = rest.rsplit(":", 1)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    column = column or data["variants"][0]["name"]
    return label, {p["name"]: p for p in data["pages"]}, column


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="LABEL=RESULT.json[:COLUMN]")
    ap.add_argument("--group", action="append")
    ap.add_argument("--changed", type=float, default=None)
    args = ap.parse_args()
    runs = [load(s) for s in args.runs]
    names = [n for n in runs[0][1] if all(n in pages for _, pages, _ in runs)]
    if args.group:
        names = [n for n in names if runs[0][1][n]["group"] in args.group]
    table = {n: [pages[n][column]["f1"] for _, pages, column in runs] for n in names}
    print(f"{'page':34} {'group':9}" + "".join(f" {label[:10]:>10}" for label, _, _ in runs) + f" {'best':>6}")
    for n in names:
        row = table[n]
        if args.changed is not None and max(row) - min(row) <= args.changed:
            continue
        print(f"{n[:34]:34} {runs[0][1][n]['group'][:9]:9}" + "".join(f" {v:10.3f}" for v in row) + f" {max(row):6.3f}")
    print()
    groups = sorted({runs[0][1][n]["group"] for n in names})
    for label, subset in [(g, [n for n in names if runs[0][1][n]["group"] == g]) for g in groups] + [
            ("all but scribe", [n for n in names if runs[0][1][n]["group"] != "scribe"]), ("ALL", names)]:
        if subset:
            cols = [mean(table[n][i] for n in subset) for i in range(len(runs))]
            print(f"{label:34} {len(subset):9d}" + "".join(f" {v:10.3f}" for v in cols)
                  + f" {mean(max(table[n]) for n in subset):6.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
