#!/usr/bin/env python3
"""Reference scorer for the face benchmark's photos (standard library only).

    evaluate.py DETECTIONS.json [--annotations annotations.json] [--iou 0.5]
                [--subset all|redistributable|local] [--min-height 0] [--per-image]

DETECTIONS.json maps an image path as written in annotations.json ("photos/...") to a list of
[x, y, w, h] or [x, y, w, h, score] boxes (pixels, top-left origin, in the displayed frame:
width x height as annotated). Images missing from the file count as "no detections".

Matching, per image: detections in descending score order (file order if no score) are matched
greedily to the not-yet-matched annotated face with the highest IoU, if that IoU >= --iou.
A detection that matches no face is dropped (neither TP nor FP) when its IoU with an "ignore"
box is >= --iou or its centre lies inside an "ignore" box; otherwise it is a false positive.
Annotated faces left unmatched are false negatives. With --min-height H, annotated faces
shorter than H px become ignore boxes, so a detector with a minimum size is not charged for them.
Documents and negatives have no faces: every detection on them is a false positive (also
reported separately).
"""
import argparse, json, os, sys


def iou(a, b):
    ax1, ay1, ax2, ay2 = a[0], a[1], a[0] + a[2], a[1] + a[3]
    bx1, by1, bx2, by2 = b[0], b[1], b[0] + b[2], b[1] + b[3]
    iw = max(0.0, min(ax2, bx2) - max(ax1, bx1))
    ih = max(0.0, min(ay2, by2) - max(ay1, by1))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0.0


def score_image(faces, ignore, dets, thr):
    dets = sorted(dets, key=lambda d: -(d[4] if len(d) > 4 else 0.0))
    matched = [False] * len(faces)
    tp = fp = 0
    for d in dets:
        best, bi = thr, -1
        for i, f in enumerate(faces):
            if not matched[i]:
                v = iou(d, f)
                if v >= best:
                    best, bi = v, i
        if bi >= 0:
            matched[bi] = True
            tp += 1
            continue
        cx, cy = d[0] + d[2] / 2, d[1] + d[3] / 2
        if any(iou(d, g) >= thr or (g[0] <= cx <= g[0] + g[2] and g[1] <= cy <= g[1] + g[3]) for g in ignore):
            continue
        fp += 1
    return tp, fp, len(faces) - tp


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("detections")
    ap.add_argument("--annotations", default=os.path.join(here, "annotations.json"))
    ap.add_argument("--iou", type=float, default=0.5)
    ap.add_argument("--subset", choices=["all", "redistributable", "local"], default="all")
    ap.add_argument("--min-height", type=float, default=0)
    ap.add_argument("--per-image", action="store_true")
    a = ap.parse_args()
    ann = json.load(open(a.annotations))
    det = json.load(open(a.detections))
    TP = FP = FN = 0
    fp_nonface = 0
    for e in ann:
        if a.subset == "redistributable" and not e["redistributable"]:
            continue
        if a.subset == "local" and e["redistributable"]:
            continue
        faces = [f for f in e["faces"] if f[3] >= a.min_height]
        ignore = e["ignore"] + [f for f in e["faces"] if f[3] < a.min_height]
        tp, fp, fn = score_image(faces, ignore, det.get(e["image"], []), a.iou)
        TP, FP, FN = TP + tp, FP + fp, FN + fn
        if e["role"] != "faces":
            fp_nonface += fp
        if a.per_image:
            print(f"{e['image']}: tp {tp} fp {fp} fn {fn}")
    p = TP / (TP + FP) if TP + FP else 0.0
    r = TP / (TP + FN) if TP + FN else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    print(json.dumps({"tp": TP, "fp": FP, "fn": FN, "precision": round(p, 4), "recall": round(r, 4),
                      "f1": round(f1, 4), "fp_on_documents_and_negatives": fp_nonface,
                      "iou": a.iou, "subset": a.subset, "min_height": a.min_height}))


if __name__ == "__main__":
    sys.exit(main())
