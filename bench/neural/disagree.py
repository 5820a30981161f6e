#!/usr/bin/env python3
"""Where Gloss's neural reader and RapidOCR 3.10 part, line by line, on the same picture.

  disagree.py --json BENCH.json [--half tune] [--page SUBSTRING ...] [--lines]

Run with the Python that has rapidocr (.build/venv/bin/python) after `bench.py --json BENCH.json`,
whose rows hold the picture RapidOCR's stages read (`rapid.py --bounded`) and Gloss's lines on it
(`gloss ocr PNG --engine neural --prepare none`). For each page where the two part, RapidOCR is
run stage by stage on that picture (detector boxes with their scores, the classifier's turn, the
recogniser's text, score and the smallest gap between its two likeliest classes at a step), and
every RapidOCR line Gloss does not read the same is put down to the first cause that fits:

  missing, rapid score near 0.5   no Gloss line; RapidOCR's line score is within 0.02 of text_score
  missing                         no Gloss line overlaps it (IoU >= 0.5): a box Gloss does not find
  box differs                     the boxes' hulls differ by more than 1 px on a side
  turned by the classifier        RapidOCR's classifier turned the line over (P(180) > 0.9)
  padding                         RapidOCR's own recogniser reads Gloss's text once the batch is
                                  padded to a multiple of 8 columns as Gloss pads it
  near tie                        the recogniser's two likeliest classes were within 1e-4 at a step
  text differs                    same box, same turn: the crop or the recogniser's arithmetic

Gloss lines no RapidOCR line overlaps are counted as `extra` beside. --lines prints each line.
"""
import argparse, collections, copy, json, os, sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
import rapid  # noqa: E402

NEAR_SCORE = 0.02
TIE = 1e-4


def reading_order(boxes):
    """The permutation `TextDetector.sorted_boxes` applies: top-left y (stable), rows of 10 px, x."""
    if len(boxes) == 0:
        return np.arange(0)
    by_y = np.argsort(boxes[:, 0, 1], kind="stable")
    ys = boxes[by_y, 0, 1]
    rows = np.concatenate([[0], np.cumsum(np.diff(ys) >= 10)])
    return by_y[np.lexsort((boxes[by_y, 0, 0], rows))]


def gap(step):
    top = np.sort(step)[-2:]
    return float(top[1] - top[0])


def trace(ocr, png):
    """RapidOCR's stages on the picture: per detected box, in reading order, what each stage gave."""
    from rapidocr.utils.process_img import apply_vertical_padding, get_rotate_crop_image
    image = ocr.load_img(png)
    image, record = ocr.preprocess_img(image)
    assert record["preprocess"]["ratio_w"] == 1.0, "the picture is RapidOCR's bounded one already"
    image, record = apply_vertical_padding(image, record, ocr.width_height_ratio, ocr.min_height)
    top = record["padding_1"]["top"]
    det = ocr._load_det_model()
    prepared = det.get_preprocess()(image)
    if prepared is None:
        return []
    boxes, scores = det.postprocess_op(det.session(prepared), image.shape[:2])
    if len(boxes) == 0:
        return []
    order = reading_order(boxes)
    boxes, scores = boxes[order], [scores[i] for i in order]
    crops = [get_rotate_crop_image(image, copy.deepcopy(b.astype(np.float32))) for b in boxes]
    cls = ocr._load_cls_model()(crops)
    rec = ocr._load_rec_model()
    lines = [{"quad": (b - [0, top]).tolist(), "box_score": float(s), "cls": [label, float(p)]}
             for b, s, (label, p) in zip(boxes, scores, cls.cls_res)]
    for line in lines:
        line["turned"] = "180" in line["cls"][0] and line["cls"][1] > ocr.cfg.Cls.cls_thresh
        xs, ys = [p[0] for p in line["quad"]], [p[1] for p in line["quad"]]
        line["box"] = [min(xs), min(ys), max(xs), max(ys)]
    images = cls.img_list
    ratios = np.array([im.shape[1] / float(im.shape[0]) for im in images])
    indices = np.argsort(ratios)
    for start in range(0, len(images), rec.rec_batch_num):
        chunk = indices[start:start + rec.rec_batch_num]
        widest = max([320 / 48] + [ratios[i] for i in chunk])
        batch = np.stack([rec.resize_norm_img(images[i], widest) for i in chunk]).astype(np.float32)
        preds = rec.session(batch)
        texts = rec.postprocess_op(preds)[0]
        # Gloss pads the batch to a multiple of the recogniser's 8-column stride.
        width = batch.shape[3]
        padded = np.zeros(batch.shape[:3] + ((width + 7) // 8 * 8,), dtype=np.float32)
        padded[..., :width] = batch
        texts8 = rec.postprocess_op(rec.session(padded))[0]
        for k, i in enumerate(chunk):
            lines[i].update(text=texts[k][0], score=float(texts[k][1]), text8=texts8[k][0],
                            gap=min((gap(step) for step in preds[k]), default=1.0), width=width,
                            kept=bool(texts[k][0].strip()) and texts[k][1] >= ocr.text_score)
    return lines


def gloss_lines(row):
    """Gloss's lines on RapidOCR's picture, from the bench's JSON, back in that picture's pixels."""
    rw, rh = row["input"]["ratio_w"], row["input"]["ratio_h"]
    return [{"text": l["text"], "box": [l["box"][0] / rw, l["box"][1] / rh, l["box"][2] / rw, l["box"][3] / rh]}
            for l in row["same_input_lines"]]


def cause(r, g):
    if g is None:
        return "missing, rapid score near 0.5" if abs(r["score"] - 0.5) <= NEAR_SCORE else "missing"
    if max(abs(a - b) for a, b in zip(r["box"], g["box"])) > 1:
        return "box differs"
    if r["turned"]:
        return "turned by the classifier"
    if bench.same_text(r["text8"], g["text"]):
        return "padding"
    if r["gap"] < TIE:
        return "near tie"
    return "text differs"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", required=True)
    ap.add_argument("--half", choices=("tune", "measure"))
    ap.add_argument("--page", action="append")
    ap.add_argument("--lines", action="store_true")
    args = ap.parse_args()
    with open(args.json, encoding="utf-8") as f:
        rows = json.load(f)["pages"]
    rows = [r for r in rows if r.get("input") and (not args.half or r["half"] == args.half)
            and (not args.page or any(s in r["name"] for s in args.page))]
    ocr = rapid.engine()
    causes, extra, total = collections.Counter(), collections.Counter(), 0
    for row in rows:
        total += row["same_input"]["lines"]
        if row["same_input"]["same"] == row["same_input"]["lines"]:
            continue
        theirs = [l for l in trace(ocr, row["input"]["out"]) if l.get("kept")]
        ours = gloss_lines(row)
        used = set()
        for r in theirs:
            best = max(range(len(ours)), key=lambda i: bench.iou(r["box"], ours[i]["box"]), default=None)
            g = ours[best] if best is not None and bench.iou(r["box"], ours[best]["box"]) >= bench.SAME_LINE_IOU else None
            if g is not None:
                used.add(best)
                if bench.same_text(r["text"], g["text"]):
                    continue
            c = cause(r, g)
            causes[c] += 1
            if args.lines:
                print(f"{row['name']:28} {c:30} rapid {r['text']!r} {r['score']:.3f} box {r['box']} det {r['box_score']:.3f}"
                      f" cls {r['cls'][0]} {r['cls'][1]:.3f} gap {r['gap']:.1e} w {r['width']}"
                      + (f"\n{'':59} gloss {g['text']!r} box {[round(v) for v in g['box']]}" if g else ""), flush=True)
        for i, g in enumerate(ours):
            if i not in used and not any(bench.iou(r["box"], g["box"]) >= bench.SAME_LINE_IOU for r in theirs):
                extra["extra"] += 1
                if args.lines:
                    print(f"{row['name']:28} {'extra':30} gloss {g['text']!r} box {g['box']}")
    print(f"\n{total} RapidOCR lines on {len(rows)} pages; {sum(causes.values())} not read the same by Gloss:")
    for c, n in causes.most_common():
        print(f"  {c:32} {n:5d}")
    print(f"  {'(extra Gloss lines)':32} {extra['extra']:5d}")


if __name__ == "__main__":
    main()
