#!/usr/bin/env python3
"""Simulate the fused reader on the collected readings (README.md, "Fusion").

  simulate.py [--readings DIR] [--calibration FILE] [--line-score mean|min] [--compare mean|gain]
              [--orphans keep|drop] [--min-share 0.5] [--bar B] [--show PAGE] [--json OUT]

The design: Tesseract reads the page; the neural detector's lines are the page's lines; each
Tesseract word goes to the detected line holding the largest part of its box (at least
--min-share of it; a word no line holds that much is an orphan). Per detected line:
  - no Tesseract word (with a token)          -> the neural reading of the line;
  - Tesseract's line score under the bar      -> the neural reader reads it too, and the reading
                                                 with the better calibrated score is kept;
  - otherwise                                 -> Tesseract's reading.
The page is assembled in the neural reader's line order (its JSON's; --order tesseract: by the
place of each line's first Tesseract word in Tesseract's reading), a line's Tesseract words in
Tesseract's order; orphans are kept after the detected line that holds the Tesseract word
read before them (--orphans keep), dropped, or kept only when their calibrated probability
reaches --orphan-bar (--orphans sure). Scored with the bench's F1 and CER, per group and
half, against Tesseract alone, the neural reader alone, the per-page oracle, the "ceiling"
(the neural reader reads every line and Tesseract's reading wins only when more probable) and
the per-line oracle (per line, the reading with more right words, by the labels). The bar is
swept; the one with the best mean F1 on the tune half is reported on both halves, and the
cheapest bar within 0.005 of that F1 (fewest lines read) is named. --coverage C also sends a
line to the neural reader when its Tesseract words cover less than C of its width.
"""
import argparse, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import score  # noqa: E402

BARS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.96, 0.98, 1.01)
CEILING = 2.0  # a bar no line score reaches: every line read by both


def line_score(words, how):
    ps = [w["p"] for w in words if w["tokens"]]
    if not ps:
        return None
    if how == "mean":
        return sum(ps) / len(ps)
    if how == "min":
        return min(ps)
    raise ValueError(how)


def gain(words):
    """Expected change of the bag F1's numerator less half the words read: sum of (p - 1/2).

    Adding a line of r words, h of them right, to a page read at F1 F moves the F1 by about
    (h - r F / 2) * 2 / (|truth| + |read|); at F near 1, that is h - r / 2."""
    return sum(w["p"] - 0.5 for w in words if w["tokens"])


def right_gain(words):
    return sum((1.0 if w["right"] else 0.0) - 0.5 for w in words if w["tokens"])


def prepare(page, knots, min_share):
    """Detected lines with their neural words and their assigned Tesseract words; orphans."""
    truth = common.Truth(page["truth_tokens"])
    t_lines = common.label_lines(common.reading_lines(page["readings"]["tesseract"]), truth)
    n_lines = common.label_lines(common.reading_lines(page["readings"]["neural"]), truth)
    for reader, lines in (("tesseract", t_lines), ("neural", n_lines)):
        for line in lines:
            for w in line["words"]:
                w["p"] = common.interpolate(knots[reader], w["confidence"])
    detected = [{"box": l["box"], "neural": l["words"], "tesseract": [], "after": []} for l in n_lines]
    t_words = [w for l in t_lines for w in l["words"]]
    for k, w in enumerate(t_words):
        w["order"] = k
    orphans_after = {-1: []}  # detected line index -> orphans read after its last word
    previous = -1
    for w in t_words:
        a = common.area(w["bbox"])
        best, best_overlap = None, 0
        for i, d in enumerate(detected):
            o = common.overlap(w["bbox"], d["box"])
            if o > best_overlap:
                best, best_overlap = i, o
        if best is not None and a > 0 and best_overlap >= min_share * a:
            detected[best]["tesseract"].append(w)
            previous = best
        else:
            orphans_after.setdefault(previous, []).append(w)
    return detected, orphans_after


def covered(words):
    """The length of the union of the words' boxes along x."""
    spans = sorted((w["bbox"][0], w["bbox"][2]) for w in words)
    total, end = 0, None
    for x0, x1 in spans:
        if end is None or x0 > end:
            total += x1 - x0
            end = x1
        elif x1 > end:
            total += x1 - end
            end = x1
    return total


def coverage(line):
    """The share of the detected line's width its Tesseract words cover."""
    width = line["box"][2] - line["box"][0]
    t = [w for w in line["tesseract"] if w["tokens"]]
    return min(1.0, covered(t) / width) if width > 0 and t else 0.0


def decide(line, bar, line_how, compare, min_coverage=0.0):
    """'tesseract' or 'neural', and whether the neural reader read the line.

    A line whose Tesseract words cover less than min_coverage of its width is unsure too."""
    t = [w for w in line["tesseract"] if w["tokens"]]
    if not t:
        return "neural", True
    st = line_score(t, line_how)
    if st >= bar and (min_coverage <= 0 or coverage(line) >= min_coverage):
        return "tesseract", False
    if not [w for w in line["neural"] if w["tokens"]]:
        return "tesseract", True
    if compare == "mean":
        better = line_score(line["neural"], "mean") > line_score(t, "mean")
    else:
        better = gain(line["neural"]) > gain(t)
    return ("neural" if better else "tesseract"), True


def oracle(line):
    t = [w for w in line["tesseract"] if w["tokens"]]
    if not t:
        return "neural"
    return "neural" if right_gain(line["neural"]) > right_gain(line["tesseract"]) else "tesseract"


def ratio(box):
    """A line's width over its height: the recogniser's columns scale with it."""
    return max(1.0, (box[2] - box[0]) / max(1, box[3] - box[1]))


def line_order(detected, how):
    """The detected lines' indices in the order the page is assembled.

    "neural": the neural reader's own order. "tesseract": by the place of each line's first
    Tesseract word in Tesseract's reading; a line without one follows the line before it in the
    neural order."""
    if how == "neural":
        return list(range(len(detected)))
    keys, last = [], (-1, 0)
    for i, line in enumerate(detected):
        if line["tesseract"]:
            last = (line["tesseract"][0]["order"], 0)
        else:
            last = (last[0], last[1] + 1)
        keys.append((last, i))
    return [i for _, i in sorted(keys)]


def assemble(detected, orphans_after, choices, keep_orphans, order="neural"):
    """(tokens, text) of the fused page."""
    out_lines = []
    if keep_orphans and orphans_after.get(-1):
        out_lines.append(orphans_after[-1])
    for i in line_order(detected, order):
        out_lines.append(detected[i][choices[i]])
        if keep_orphans and orphans_after.get(i):
            out_lines.append(orphans_after[i])
    tokens = [t for words in out_lines for w in words for t in w["tokens"]]
    text = "\n".join(" ".join(w["text"] for w in words) for words in out_lines if words)
    return tokens, text


def scored(page, tokens, text):
    _, _, f1 = score.bag_f1(page["truth_tokens"], tokens)
    return {"f1": f1, "cer": common.cer(page["truth"], text)}


def alone(page, reader):
    reading = page["readings"][reader]
    tokens = score.tokens(" ".join(w.get("text", "") for w in reading.get("words", [])))
    return scored(page, tokens, reading.get("text") or "")


def fused(page, detected, orphans_after, bar, args, chooser=None):
    choices, read, read_ratio = [], 0, 0.0
    for line in detected:
        if chooser is not None:
            choice, did_read = chooser(line), True
        else:
            choice, did_read = decide(line, bar, args.line_score, args.compare, args.coverage)
        choices.append(choice)
        if did_read:
            read += 1
            read_ratio += ratio(line["box"])
    if args.orphans == "sure":
        orphans_after = {k: [w for w in v if w["p"] >= args.orphan_bar] for k, v in orphans_after.items()}
    tokens, text = assemble(detected, orphans_after, choices, args.orphans != "drop", args.order)
    r = scored(page, tokens, text)
    total_ratio = sum(ratio(l["box"]) for l in detected)
    r.update(lines=len(detected), read=read, share=read / len(detected) if detected else 0.0,
             width_share=read_ratio / total_ratio if total_ratio else 0.0, choices=choices)
    return r


def stage_seconds(page):
    """The stages' seconds from the page JSONs' `timings` (milliseconds): Tesseract's
    preparation and reading, the neural detector and recogniser."""
    t = page["readings"]["tesseract"].get("timings") or {}
    n = page["readings"]["neural"].get("timings") or {}
    return {"t_prepare": t.get("prepare", 0) / 1000, "t_ocr": t.get("ocr", 0) / 1000,
            "n_prepare": n.get("prepare", 0) / 1000, "detect": n.get("detect", 0) / 1000,
            "recognize": n.get("recognize", 0) / 1000}


def cost(row, key):
    """Seconds of a page read the fused way: Tesseract's preparation and reading, the detector,
    and the recogniser's time in proportion to the width of the lines it reads."""
    s = row["seconds"]
    return s["t_prepare"] + s["t_ocr"] + s["detect"] + s["recognize"] * row[key]["width_share"]


def summarise(rows, key):
    out = {}
    for half in ("tune", "measure", "all"):
        sel = [r for r in rows if half == "all" or r["half"] == half]
        if not sel:
            continue
        out[half] = {"pages": len(sel), "f1": common.mean(r[key]["f1"] for r in sel),
                     "cer": common.mean(r[key]["cer"] for r in sel)}
        if "read" in sel[0][key]:
            lines = sum(r[key]["lines"] for r in sel)
            out[half]["share"] = sum(r[key]["read"] for r in sel) / lines if lines else 0.0
            out[half]["width_share"] = common.mean(r[key]["width_share"] for r in sel)
    return out


def main():
    ap = common.options(argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter))
    ap.add_argument("--calibration", help="knots from calibrate.py (default READINGS/calibration.json)")
    ap.add_argument("--line-score", choices=("mean", "min"), default="mean", help="Tesseract's line score against the bar")
    ap.add_argument("--compare", choices=("mean", "gain"), default="mean",
                    help="better reading by mean calibrated probability, or by expected gain (sum of p - 1/2)")
    ap.add_argument("--orphans", choices=("keep", "drop", "sure"), default="keep",
                    help="Tesseract words on no detected line: kept, dropped, or kept when P(right) >= --orphan-bar")
    ap.add_argument("--orphan-bar", type=float, default=0.9)
    ap.add_argument("--order", choices=("neural", "tesseract"), default="neural",
                    help="assemble the lines in the neural reader's order or by Tesseract's words' order")
    ap.add_argument("--coverage", type=float, default=0.0,
                    help="a line whose Tesseract words cover less than this share of its width is unsure too (0: off)")
    ap.add_argument("--min-share", type=float, default=0.5, help="share of a word's box its line must hold")
    ap.add_argument("--bar", type=float, help="report at this bar instead of the tune half's best")
    ap.add_argument("--show", action="append", default=[], help="print this page's lines where the fused choice and the line oracle part")
    ap.add_argument("--json", help="write the per-page results here")
    args = ap.parse_args()
    knots = common.load_knots(args.calibration or os.path.join(args.readings, "calibration.json"))
    pages = common.load(args)
    rows = []
    for page in pages:
        detected, orphans = prepare(page, knots, args.min_share)
        row = {"name": page["name"], "group": page["group"], "half": page["half"],
               "tesseract": alone(page, "tesseract"), "neural": alone(page, "neural"),
               "orphans": sum(len(v) for v in orphans.values()),
               "tesseract_words": sum(len(l["tesseract"]) for l in detected) + sum(len(v) for v in orphans.values())}
        row["seconds"] = stage_seconds(page)
        row["page_oracle"] = max((row["tesseract"], row["neural"]), key=lambda r: r["f1"])
        for bar in BARS:
            row[f"bar {bar}"] = fused(page, detected, orphans, bar, args)
        row["ceiling"] = fused(page, detected, orphans, CEILING, args)
        row["line_oracle"] = fused(page, detected, orphans, None, args, chooser=oracle)
        row["_detected"], row["_orphans"] = detected, orphans
        rows.append(row)
    sweep = {bar: summarise(rows, f"bar {bar}") for bar in BARS}
    tune_rows = [r for r in rows if r["half"] == "tune"]
    chosen = args.bar if args.bar is not None else (
        max(BARS, key=lambda b: (round(sweep[b]["tune"]["f1"], 4), -b)) if tune_rows else BARS[-1])
    if chosen not in BARS:
        for row in rows:
            page = next(p for p in pages if p["name"] == row["name"])
            row[f"bar {chosen}"] = fused(page, row["_detected"], row["_orphans"], chosen, args)
        sweep[chosen] = summarise(rows, f"bar {chosen}")
    if tune_rows:
        best = sweep[chosen]["tune"]["f1"]
        knee = min((b for b in BARS if sweep[b]["tune"]["f1"] >= best - 0.005), key=lambda b: sweep[b]["tune"]["share"])
        print(f"cheapest bar within 0.005 of the tune half's best F1: {knee:g} "
              f"(tune F1 {sweep[knee]['tune']['f1']:.3f}, lines read {sweep[knee]['tune']['share']:.2f}; measure "
              + (f"F1 {sweep[knee]['measure']['f1']:.3f}, lines read {sweep[knee]['measure']['share']:.2f})" if 'measure' in sweep[knee] else "-)"))
    print(f"settings: line score {args.line_score}, compare {args.compare}, orphans {args.orphans}, order {args.order}, coverage {args.coverage}, "
          f"min share {args.min_share}; pages {len(rows)} (tune {len(tune_rows)})")
    orph = sum(r["orphans"] for r in rows)
    tw = sum(r["tesseract_words"] for r in rows)
    print(f"Tesseract words on no detected line (orphans): {orph} of {tw} ({orph / max(1, tw):.1%})")
    print("\n## The bar swept (mean F1 / mean CER / share of lines the neural reader reads)")
    print("| bar | tune F1 | tune CER | tune lines read | measure F1 | measure CER | measure lines read |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for bar in sorted(sweep):
        s = sweep[bar]
        cells = []
        for half in ("tune", "measure"):
            h = s.get(half)
            cells += [f"{h['f1']:.3f}", f"{h['cer']:.3f}", f"{h['share']:.2f}"] if h else ["-"] * 3
        print(f"| {bar:g}{' (chosen)' if bar == chosen else ''} | " + " | ".join(cells) + " |")
    columns = [("Tesseract", "tesseract"), ("neural", "neural"), ("page oracle", "page_oracle"),
               (f"fused {chosen:g}", f"bar {chosen}"), ("ceiling", "ceiling"), ("line oracle", "line_oracle")]
    print(f"\n## Per group and half (F1 / CER; lines read: fused, ceiling)")
    print("| group | half | pages | " + " | ".join(c for c, _ in columns) + " | read: fused | ceiling |")
    print("| --- | --- | ---: | " + " | ".join("---" for _ in columns) + " | ---: | ---: |")
    groups = sorted({r["group"] for r in rows})
    for group in groups + ["ALL"]:
        for half in ("tune", "measure"):
            sel = [r for r in rows if (group == "ALL" or r["group"] == group) and r["half"] == half]
            if not sel:
                continue
            cells = []
            for _, key in columns:
                f1 = common.mean(r[key]["f1"] for r in sel)
                c = common.mean(r[key]["cer"] for r in sel)
                cells.append(f"{f1:.3f} / {c:.3f}")
            reads = []
            for key in (f"bar {chosen}", "ceiling"):
                lines = sum(r[key]["lines"] for r in sel)
                reads.append(f"{sum(r[key]['read'] for r in sel) / max(1, lines):.2f}")
            print(f"| {group} | {half} | {len(sel)} | " + " | ".join(cells) + " | " + " | ".join(reads) + " |")
    print("\n## Cost: seconds a page from the JSONs' stage timings (wall time under the run's load;"
          " only their ratios mean anything). Fused = Tesseract + detector + recogniser x width share read")
    print("| half | Tesseract (prepare + read) | neural (prepare + detect + recognise) | fused | ceiling | fused / Tesseract | fused / neural |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for half in ("tune", "measure"):
        sel = [r for r in rows if r["half"] == half]
        if not sel:
            continue
        t = sum(r["seconds"]["t_prepare"] + r["seconds"]["t_ocr"] for r in sel) / len(sel)
        n = sum(r["seconds"]["n_prepare"] + r["seconds"]["detect"] + r["seconds"]["recognize"] for r in sel) / len(sel)
        f = sum(cost(r, f"bar {chosen}") for r in sel) / len(sel)
        c = sum(cost(r, "ceiling") for r in sel) / len(sel)
        print(f"| {half} | {t:.2f} | {n:.2f} | {f:.2f} | {c:.2f} | {f / t:.2f} | {f / n:.2f} |")
    for half in ("tune", "measure"):
        h = sweep[chosen].get(half)
        if h:
            print(f"CHOSEN {args.line_score}/{args.compare}/{args.orphans}/{args.order}/cov {args.coverage} bar {chosen:g} {half}: "
                  f"F1 {h['f1']:.3f} CER {h['cer']:.3f} lines read {h['share']:.2f} width read {h['width_share']:.2f}")
    print("\n## The comparison alone: detected lines both read, with a different number of right words")
    print("| half | lines | mean calibrated picks the better | gain picks the better | mean raw picks the better |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for half in ("tune", "measure"):
        n, hits = 0, {"mean": 0, "gain": 0, "raw": 0}
        for r in rows:
            if r["half"] != half:
                continue
            for line in r["_detected"]:
                t = [w for w in line["tesseract"] if w["tokens"]]
                nw = [w for w in line["neural"] if w["tokens"]]
                if not t or not nw or right_gain(t) == right_gain(nw):
                    continue
                n += 1
                neural_better = right_gain(nw) > right_gain(t)
                hits["mean"] += (line_score(nw, "mean") > line_score(t, "mean")) == neural_better
                hits["gain"] += (gain(nw) > gain(t)) == neural_better
                raw_n = sum(w["confidence"] for w in nw) / len(nw)
                raw_t = sum(w["confidence"] for w in t) / len(t)
                hits["raw"] += (raw_n > raw_t) == neural_better
        if n:
            print(f"| {half} | {n} | {hits['mean'] / n:.3f} | {hits['gain'] / n:.3f} | {hits['raw'] / n:.3f} |")
    print(f"\n## Pages where fused ({chosen:g}) is worse than the better reader alone by more than 0.005 F1")
    print("| page | half | Tesseract | neural | fused | ceiling | line oracle |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        best = max(r["tesseract"]["f1"], r["neural"]["f1"])
        if r[f"bar {chosen}"]["f1"] < best - 0.005:
            print(f"| {r['name']} | {r['half']} | {r['tesseract']['f1']:.3f} | {r['neural']['f1']:.3f} | "
                  f"{r[f'bar {chosen}']['f1']:.3f} | {r['ceiling']['f1']:.3f} | {r['line_oracle']['f1']:.3f} |")
    for name in args.show:
        for r in rows:
            if name in r["name"]:
                show(r, chosen, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"settings": vars(args), "chosen": chosen, "sweep": {str(k): v for k, v in sweep.items()},
                       "pages": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]}, f, indent=1)


def words_text(words):
    return " ".join(f"{w['text']}{'' if w['right'] else '*' if w['right'] is False else ''}" for w in words)


def show(row, chosen, args):
    print(f"\n### {row['name']}: lines where the fused choice reads fewer words right than the other reading (* = wrong word)")
    for line, choice, best in zip(row["_detected"], row[f"bar {chosen}"]["choices"], row["line_oracle"]["choices"]):
        if choice == best or right_gain(line[choice]) == right_gain(line[best]):
            continue
        t = [w for w in line["tesseract"] if w["tokens"]]
        st = line_score(t, args.line_score) if t else None
        sn = line_score(line["neural"], "mean")
        print(f"- kept {choice}, better {best}; T {st if st is None else round(st, 3)}: {words_text(line['tesseract'])!r}"
              f" | N {sn if sn is None else round(sn, 3)}: {words_text(line['neural'])!r}")
    orphans = [w for v in row["_orphans"].values() for w in v]
    if orphans:
        print(f"- orphans ({len(orphans)}): {words_text(orphans)[:400]!r}")


if __name__ == "__main__":
    main()
