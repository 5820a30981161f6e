#!/usr/bin/env python3
"""At what letter size does PP-OCRv6's detector work well? (DetectionPolicy.targetXHeight)

Each page is read with RapidOCR 3.10.0's networks (onnxruntime) and post-processing, its
detector input scaled so the page's letters (the x-height Gloss measures, `x_heights.sh`) are
T pixels tall, for several T, and once at RapidOCR's own default size. The text is scored
against the page's ground truth (bag-of-words F1 and CER, bench/ocr-quality/score.py) and the
detector's time is taken. Lines the detector loses lower recall; a size past which nothing is
gained only costs time. Pages are split, alternately in name order within each group, into a
half to tune on and a half only measured.

    bench/neural/x_heights.sh GLOSS .build/neural-xheights.tsv PAGE...      # first
    .build/venv/bin/python bench/neural/detector_size.py [--targets 6,8,10,12,16] [--json out.json]
"""
import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from rapidocr import RapidOCR
from rapidocr.utils.process_img import apply_vertical_padding, get_rotate_crop_image, resize_image_within_bounds

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench/ocr-quality"))
import score  # noqa: E402  (tokens, bag_f1, cer)

DATA = ROOT / ".build/ocr-data"
LONGEST = 4000  # the input's longer side is capped here (memory and time); capped runs are marked


def pages(xheights):
    found = []
    for path in sorted((ROOT / "fixtures/text").glob("*.json")):
        meta = json.loads(path.read_text())
        image = ROOT / "fixtures/text" / meta["image"]
        if image.suffix == ".tif" or image.name not in xheights:
            continue
        found.append(("fixtures", image, meta["text"]))
    manifest = json.loads((DATA / "manifest.json").read_text()) if (DATA / "manifest.json").exists() else []
    for page in manifest:
        if page["image"] in xheights:
            found.append((page["group"], DATA / page["image"], (DATA / page["truth"]).read_text(), page.get("half")))
    return found


def split(found):
    """The manifest's halves (`tune` / `measure`) for its pages; the fixtures, which have none,
    alternate in name order: even ones to tune on, odd ones to measure."""
    tune, measure, seen = [], [], {}
    for page in found:
        half = page[3] if len(page) > 3 else None
        if half is None:
            k = seen.get(page[0], 0)
            half = "tune" if k % 2 == 0 else "measure"
            seen[page[0]] = k + 1
        (tune if half == "tune" else measure).append(page[:3])
    return tune, measure


def read(ocr, img, size):
    """RapidOCR's detection at input `size` (w, h), then its classifier and recogniser."""
    det = ocr._load_det_model()
    pre = det.get_preprocess()
    resized = cv2.resize(img, size)
    tensor = np.expand_dims(pre.permute(pre.normalize(resized)), 0).astype(np.float32)
    start = time.perf_counter()
    preds = det.session(tensor)
    seconds = time.perf_counter() - start
    boxes, _ = det.postprocess_op(preds, img.shape[:2])
    if len(boxes) == 0:
        return "", 0, seconds
    boxes = det.sorted_boxes(boxes)
    crops = [get_rotate_crop_image(img, b.astype(np.float32).copy()) for b in boxes]
    crops = ocr._load_cls_model()(crops).img_list
    rec = ocr.recognize_txt(crops)
    lines = [t for t, s in zip(rec.txts, rec.scores) if s >= ocr.text_score and t.strip()]
    return "\n".join(lines), len(boxes), seconds


def rapid_default(ocr, img):
    start = time.perf_counter()
    out = ocr(img)
    seconds = time.perf_counter() - start
    txts = getattr(out, "txts", None) or ()
    elapse = getattr(out, "elapse_list", None) or [seconds]
    return "\n".join(txts), len(txts), seconds, elapse[0]


def rapid_input(ocr, img):
    """The detector input RapidOCR's default rule gives this page (w, h)."""
    pre, _, _ = resize_image_within_bounds(img, ocr.min_side_len, ocr.max_side_len)
    padded, _ = apply_vertical_padding(pre, {"preprocess": {}}, ocr.width_height_ratio, ocr.min_height)
    resized = ocr._load_det_model().get_preprocess().resize(padded)
    return [resized.shape[1], resized.shape[0]]


def input_size(img, xheight, target):
    h, w = img.shape[:2]
    s = target / xheight
    s = min(s, LONGEST / max(h, w))
    return (max(32, int(round(w * s / 32)) * 32), max(32, int(round(h * s / 32)) * 32)), s * max(h, w) >= LONGEST - 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--targets", default="6,8,10,12,16")
    parser.add_argument("--xheights", default=str(ROOT / ".build/neural-xheights.tsv"))
    parser.add_argument("--json")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--half", choices=["tune", "measure", "both"], default="both", help="read one half only")
    parser.add_argument("--skip-group", action="append", default=[], help="leave a group of pages out")
    parser.add_argument("--no-rapid", action="store_true", help="skip the run at RapidOCR's own size")
    parser.add_argument("--merge", nargs="*", help="print the tables of these --json files together and stop")
    args = parser.parse_args()
    targets = [float(t) for t in args.targets.split(",")]
    if args.merge:
        results = [row for path in args.merge for row in json.loads(Path(path).read_text())]
        return report(results, targets)
    xheights = {}
    for line in Path(args.xheights).read_text().splitlines():
        name, value = line.split("\t")
        if value not in ("None", ""):
            xheights[name] = float(value)
    ocr = RapidOCR(params={"Global.log_level": "error",
                           "EngineConfig.onnxruntime.intra_op_num_threads": args.threads,
                           "EngineConfig.onnxruntime.inter_op_num_threads": 1})
    found = [page for page in pages(xheights) if page[0] not in args.skip_group]
    done = {}
    if args.json and Path(args.json).exists():
        done = {row["page"]: row for row in json.loads(Path(args.json).read_text())}
    tune, measure = split(found)
    results = []
    for half, group in (("tune", tune), ("measure", measure)):
        if args.half not in ("both", half):
            continue
        for kind, image, truth in group:
            if image.name in done:
                results.append(done[image.name])
                continue
            img = ocr.load_img(str(image))
            xh = xheights[image.name]
            row = {"half": half, "group": kind, "page": image.name, "size": [img.shape[1], img.shape[0]], "xHeight": xh, "runs": {}}
            truth_tokens = score.tokens(truth)
            if not args.no_rapid:
                text, lines, seconds, det_seconds = rapid_default(ocr, img)
                p, r, f1 = score.bag_f1(truth_tokens, score.tokens(text))
                row["runs"]["rapid"] = {"f1": f1, "recall": r, "cer": score.cer(truth, text), "lines": lines,
                                        "detSeconds": det_seconds, "input": rapid_input(ocr, img)}
            for t in targets:
                size, capped = input_size(img, xh, t)
                text, lines, seconds = read(ocr, img, size)
                p, r, f1 = score.bag_f1(truth_tokens, score.tokens(text))
                row["runs"][str(t)] = {"f1": f1, "recall": r, "cer": score.cer(truth, text), "lines": lines,
                                       "detSeconds": seconds, "input": list(size), "capped": capped}
            results.append(row)
            print(f"{half:7} {image.name[:34]:34} xh {xh:5.1f} " + " ".join(
                f"{k}:{v['f1']:.3f}" for k, v in row["runs"].items()), flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))
    report(results, targets)


def report(results, targets):
    """Means per half over the pages some run reads (pages nothing reads at any size say
    nothing about size), with the mean input area and how many inputs exceed 2000 px."""
    keys = [k for k in ["rapid"] + [str(t) for t in targets] if any(k in r["runs"] for r in results)]
    for half in ("tune", "measure"):
        rows = [r for r in results if r["half"] == half and all(k in r["runs"] for k in keys)]
        read = [r for r in rows if any(v["lines"] for v in r["runs"].values())]
        print(f"\n{half}: {len(read)} pages read of {len(rows)}")
        print(f"{'input':>8} {'F1':>6} {'recall':>6} {'CER':>6} {'lines':>6} {'Mpx':>6} {'>2000':>6}")
        # "min:T": the smaller input of RapidOCR's and target T's, page by page (a rule that
        # only ever shrinks the detector's input), from the same runs.
        shrink = [f"min:{k}" for k in keys if k != "rapid" and "rapid" in keys]
        for k in keys + shrink:
            if k.startswith("min:"):
                t = k[4:]
                area = lambda run: run["input"][0] * run["input"][1]
                runs = [r["runs"][t] if area(r["runs"][t]) < area(r["runs"]["rapid"]) else r["runs"]["rapid"] for r in read]
            else:
                runs = [r["runs"][k] for r in read]
            mpx = [x["input"][0] * x["input"][1] / 1e6 for x in runs if x.get("input")]
            over = sum(1 for x in runs if x.get("input") and max(x["input"]) > 2000)
            print(f"{k:>8} {np.mean([x['f1'] for x in runs]):6.3f} {np.mean([x['recall'] for x in runs]):6.3f} "
                  f"{np.mean([x['cer'] for x in runs]):6.3f} {np.mean([x['lines'] for x in runs]):6.1f} "
                  f"{np.mean(mpx) if mpx else float('nan'):6.2f} {over:6d}")


if __name__ == "__main__":
    main()
