#!/usr/bin/env python3
"""Calibrate both readers' word confidences against the truth (README.md, "Calibration").

  calibrate.py [--readings DIR] [--bins 20] [--out CALIBRATION.json] [--json REPORT.json]

Labels every word of every collected reading right or wrong (common.label_lines: each line
aligned to the page's truth on its own), fits per reader on the tune half a monotone map from
raw confidence to P(right) (equal-count bins of the raw confidence, then pool-adjacent-violators
over the bins' rates), and reports on the measure half: a reliability table per bin, the Brier
score of the map against the raw confidence read as a probability, and which line score
predicts a line's correctness best. Writes the knots to OUT (simulate.py reads them) and prints
them as a Swift literal.
"""
import argparse, json, math, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

SWIFT_NAMES = {"tesseract": "tesseract", "neural": "neural"}


def labelled(pages):
    """Per reader, per half: the reading lines with each word's `right` set."""
    out = {r: {"tune": [], "measure": []} for r in common.READERS}
    for page in pages:
        truth = common.Truth(page["truth_tokens"])
        for reader in common.READERS:
            lines = common.label_lines(common.reading_lines(page["readings"][reader]), truth)
            for line in lines:
                line["page"], line["group"] = page["name"], page["group"]
            out[reader][page["half"]].extend(lines)
    return out


def words_of(lines):
    return [(w["confidence"], 1.0 if w["right"] else 0.0) for l in lines for w in l["words"] if w["right"] is not None]


def equal_count_bins(values, n):
    """Upper edges of about n bins of equal count over sorted values; ties stay in one bin."""
    values = sorted(values)
    edges = []
    for k in range(1, n):
        v = values[min(len(values) - 1, k * len(values) // n)]
        if not edges or v > edges[-1]:
            edges.append(v)
    if not edges or edges[-1] < values[-1]:
        edges.append(values[-1])
    return edges


def bin_index(edges, raw):
    """The first bin whose upper edge is >= raw (values above the last edge go to the last)."""
    lo, hi = 0, len(edges) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if raw <= edges[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bins_of(pairs, edges):
    """Per bin: count, mean raw, rate of right."""
    acc = [[0, 0.0, 0.0] for _ in edges]
    for raw, y in pairs:
        b = acc[bin_index(edges, raw)]
        b[0] += 1
        b[1] += raw
        b[2] += y
    return [{"n": n, "raw": s / n if n else None, "rate": r / n if n else None} for n, s, r in acc]


def pool_adjacent_violators(bins):
    """Non-decreasing rates over the bins, weighted by count: blocks of (n, raw sum, right sum)."""
    blocks = []
    for b in bins:
        if not b["n"]:
            continue
        blocks.append([b["n"], b["raw"] * b["n"], b["rate"] * b["n"]])
        while len(blocks) > 1 and blocks[-2][2] / blocks[-2][0] >= blocks[-1][2] / blocks[-1][0]:
            n, s, r = blocks.pop()
            blocks[-1][0] += n
            blocks[-1][1] += s
            blocks[-1][2] += r
    return blocks


def fit(pairs, n_bins):
    """Knots (raw, P(right)): each pooled block at its mean raw confidence, its rate with one
    right and one wrong word added (Laplace), so that a block of only right words says 0.995
    for 200 of them rather than certainty; kept non-decreasing."""
    edges = equal_count_bins([raw for raw, _ in pairs], n_bins)
    blocks = pool_adjacent_violators(bins_of(pairs, edges))
    knots, floor = [], 0.0
    for n, s, r in blocks:
        floor = max(floor, (r + 1) / (n + 2))
        knots.append((round(s / n, 2), round(floor, 4)))
    return knots, edges


def brier(pairs, predict):
    return sum((predict(raw) - y) ** 2 for raw, y in pairs) / len(pairs)


def log_loss(pairs, predict):
    eps = 1e-4
    return -sum(y * math.log(min(1 - eps, max(eps, predict(raw)))) + (1 - y) * math.log(min(1 - eps, max(eps, 1 - predict(raw))))
                for raw, y in pairs) / len(pairs)


def auc(scores_labels):
    """Area under the ROC curve: P(score of a right one > score of a wrong one), ties half."""
    pos = sorted(s for s, y in scores_labels if y)
    neg = sorted(s for s, y in scores_labels if not y)
    if not pos or not neg:
        return None
    import bisect
    total = 0.0
    for s in pos:
        lo = bisect.bisect_left(neg, s)
        hi = bisect.bisect_right(neg, s)
        total += lo + (hi - lo) / 2
    return total / (len(pos) * len(neg))


LINE_SCORES = {
    "mean calibrated": lambda ps, raws: sum(ps) / len(ps),
    "min calibrated": lambda ps, raws: min(ps),
    "product calibrated": lambda ps, raws: math.prod(ps),
    "mean raw": lambda ps, raws: sum(raws) / len(raws) / common.RAW_SCALE,
    "min raw": lambda ps, raws: min(raws) / common.RAW_SCALE,
}


def line_table(lines, knots):
    """Per line score: Brier against the line's share of right words, Brier and AUC against
    'every word right'."""
    rows = []
    for line in lines:
        words = [w for w in line["words"] if w["right"] is not None]
        if not words:
            continue
        raws = [w["confidence"] for w in words]
        ps = [common.interpolate(knots, r) for r in raws]
        share = sum(w["right"] for w in words) / len(words)
        rows.append((ps, raws, share, all(w["right"] for w in words), len(words)))
    out = {}
    for name, f in LINE_SCORES.items():
        s = [(f(ps, raws), share, every, n) for ps, raws, share, every, n in rows]
        out[name] = {
            "brier_share": sum((v - share) ** 2 for v, share, _, _ in s) / len(s),
            "brier_share_weighted": sum(n * (v - share) ** 2 for v, share, _, n in s) / sum(n for *_, n in s),
            "brier_every": sum((v - every) ** 2 for v, _, every, _ in s) / len(s),
            "auc_every": auc([(v, every) for v, _, every, _ in s]),
        }
    return {"lines": len(rows), "right_lines": sum(r[3] for r in rows), "scores": out}


def main():
    ap = common.options(argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter))
    ap.add_argument("--bins", type=int, default=40, help="equal-count bins of the tune half's raw confidences")
    ap.add_argument("--out", help="the knots for simulate.py (default READINGS/calibration.json)")
    ap.add_argument("--json", help="write the whole report here")
    args = ap.parse_args()
    pages = common.load(args)
    if not pages:
        sys.exit("no page has both readings: run collect.py")
    data = labelled(pages)
    report = {"pages": {h: sum(1 for p in pages if p["half"] == h) for h in ("tune", "measure")},
              "knots": {}, "readers": {}}
    for reader in common.READERS:
        tune, measure = words_of(data[reader]["tune"]), words_of(data[reader]["measure"])
        knots, edges = fit(tune, args.bins)
        report["knots"][reader] = knots
        calibrated = lambda raw, k=knots: common.interpolate(k, raw)  # noqa: E731
        raw_p = lambda raw: raw / common.RAW_SCALE  # noqa: E731
        r = {"words": {"tune": len(tune), "measure": len(measure)},
             "right": {"tune": sum(y for _, y in tune) / len(tune), "measure": sum(y for _, y in measure) / max(1, len(measure))}}
        for half, pairs in (("tune", tune), ("measure", measure)):
            if not pairs:
                continue
            r[half] = {"brier_raw": brier(pairs, raw_p), "brier_calibrated": brier(pairs, calibrated),
                       "logloss_raw": log_loss(pairs, raw_p), "logloss_calibrated": log_loss(pairs, calibrated),
                       "auc": auc(pairs)}
            table = []
            for b, edge in zip(bins_of(pairs, edges), edges):
                if b["n"]:
                    table.append({"upper": edge, "n": b["n"], "raw": b["raw"] / common.RAW_SCALE,
                                  "calibrated": calibrated(b["raw"]), "observed": b["rate"]})
            r[half]["reliability"] = table
            r[half]["lines"] = line_table(data[reader][half], knots)
        # The bag labelling, for comparison: how far the two labellings' rates of right differ.
        for half in ("tune", "measure"):
            by_page = {}
            for line in data[reader][half]:
                by_page.setdefault(line["page"], []).extend(line["words"])
            truth_of = {p["name"]: p["truth_tokens"] for p in pages}
            aligned = bag = n = 0
            for name, words in by_page.items():
                for w, b in zip(words, common.bag_labels(words, truth_of[name])):
                    if b is not None:
                        aligned += w["right"]
                        bag += b
                        n += 1
            r.setdefault("bag", {})[half] = {"aligned_rate": aligned / n if n else None, "bag_rate": bag / n if n else None}
        report["readers"][reader] = r
    out = args.out or os.path.join(args.readings, "calibration.json")
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump({"knots": report["knots"], "bins": args.bins, "pages": report["pages"]}, f, indent=1)
    os.replace(out + ".tmp", out)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    print_report(report)


def print_report(report):
    print(f"pages: tune {report['pages']['tune']}, measure {report['pages']['measure']}")
    for reader, r in report["readers"].items():
        print(f"\n## {reader}: words tune {r['words']['tune']} (right {r['right']['tune']:.3f}), "
              f"measure {r['words']['measure']} (right {r['right']['measure']:.3f})")
        print(f"bag labelling's rate of right: tune {r['bag']['tune']['bag_rate']:.3f}, measure {r['bag']['measure']['bag_rate'] or 0:.3f}")
        for half in ("tune", "measure"):
            if half not in r:
                continue
            h = r[half]
            print(f"{half}: Brier raw {h['brier_raw']:.4f}, calibrated {h['brier_calibrated']:.4f}; "
                  f"log loss raw {h['logloss_raw']:.4f}, calibrated {h['logloss_calibrated']:.4f}; AUC {h['auc']:.3f}")
        if "measure" in r:
            print("| raw bin up to | words | raw / 100 | calibrated | observed |")
            print("| ---: | ---: | ---: | ---: | ---: |")
            for b in r["measure"]["reliability"]:
                print(f"| {b['upper']:.2f} | {b['n']} | {b['raw']:.3f} | {b['calibrated']:.3f} | {b['observed']:.3f} |")
            lines = r["measure"]["lines"]
            print(f"lines (measure): {lines['lines']}, every word right: {lines['right_lines']}")
            print("| line score | Brier vs share right | same, by words | Brier vs all right | AUC all right |")
            print("| --- | ---: | ---: | ---: | ---: |")
            for name, s in lines["scores"].items():
                print(f"| {name} | {s['brier_share']:.4f} | {s['brier_share_weighted']:.4f} | {s['brier_every']:.4f} | {s['auc_every']:.3f} |")
    print("\n// Swift literal (raw on the JSON's 0...100 scale):")
    print(swift_literal(report["knots"], report["pages"]))


def swift_literal(knots, pages):
    lines = [f"// Fitted by bench/reading/calibrate.py on the tune half ({pages['tune']} pages)."]
    for reader, ks in knots.items():
        body = ",\n".join(f"    (raw: {x:g}, probability: {y:.4f})" for x, y in ks)
        lines.append(f"static let {SWIFT_NAMES[reader]} = ConfidenceScale(knots: [\n{body},\n])")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
