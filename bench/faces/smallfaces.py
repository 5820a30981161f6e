#!/usr/bin/python3
"""Small faces: recall under and over 20 px, with and without a second, larger look.

Usage:
  bench/faces/smallfaces.py --gloss .build/release/YuNetBench --data DIR [--pages DIR...]
                            [--factors 1.5 2 3] [--thresholds 0.6 0.7] [--repeat 3] [--json FILE]

The first look is the pipeline's: each photo of DIR/annotations.json reduced to 640 px on its
longest side (never enlarged; Pillow's box filter), YuNet at 0.6 with the shape policy. A second
look is one larger copy of the whole photo at FACTOR times the first copy's scale (reduced from
the original with the box filter, or enlarged bilinearly where the original is smaller), whose
faces smaller than 24 px in the first copy's scale are added to the first look's, merged two
ways: by non-maximum suppression in the photo's pixels (IoU 0.45, best score first, as YuNet
merges its own candidates), or keeping every first-look face and adding only faces that overlap
none of them (IoU <= 0.2). A face is small when its annotated height, in the 640 px copy's
scale, is under 20 px.

Prints, for the tune half (even-numbered photos) and the measure half (odd), as bench/faces/
shapes.py splits them: precision, recall, F1, recall on small faces and on the others; the
faces found on the document pages (DIR's documents and every image in each --pages folder);
the time of the larger look against the first (median over the photos of YuNetBench's least of
--repeat runs, warm); and, per small face, the best IoU of any candidate (score >= 0.3) at each
copy size, which tells a face the network does not see from a box that does not agree.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from PIL import Image

from yunet import f1, iou, photos_and_pages, score

SMALL = 20
ADDED_BELOW = 24


def copy(path, factor, folder, name):
    """The image at `factor` times the 640 px copy's scale, as PNG; and that scale."""
    image = Image.open(path).convert("RGB")
    scale = min(1.0, 640 / max(image.size)) * factor
    size = (max(1, int(image.size[0] * scale + 0.5)), max(1, int(image.size[1] * scale + 0.5)))
    if size != image.size:
        image = image.resize(size, Image.Resampling.BOX if scale < 1 else Image.Resampling.BILINEAR)
    out = os.path.join(folder, "%s-%g.png" % (name, factor))
    image.save(out)
    return out, size[0] / Image.open(path).size[0]


def run(driver, pngs, repeat):
    """Per PNG: (faces as [x1, y1, x2, y2, score] with the shape policy at 0.3, least ms)."""
    results = []
    for start in range(0, len(pngs), 40):
        out = subprocess.run([driver, "--threshold", "0.3", "--repeat", str(repeat)] + pngs[start:start + 40],
                             check=True, capture_output=True, text=True).stdout
        results += [(line["faces"], min(line["ms"])) for line in map(json.loads, out.splitlines())]
    return results


def overlap(a, b):
    """IoU of two faces given by their corners."""
    return iou(*as_boxes([a, b]))


def in_photo(faces, scale, threshold):
    return [[f[0] / scale, f[1] / scale, f[2] / scale, f[3] / scale, f[4]] for f in faces if f[4] >= threshold]


def merged(first, second, first_scale, rule):
    """The first look's faces with the second's small ones, in the photo's pixels."""
    added = [f for f in second if (f[3] - f[1]) * first_scale < ADDED_BELOW]
    if rule == "nms":
        kept = []
        for face in sorted(first + added, key=lambda f: -f[4]):
            if all(overlap(face, k) <= 0.45 for k in kept):
                kept.append(face)
        return kept
    kept = list(first)
    for face in sorted(added, key=lambda f: -f[4]):
        if all(overlap(face, k) <= 0.2 for k in kept):
            kept.append(face)
    return kept


def as_boxes(faces):
    return [[f[0], f[1], f[2] - f[0], f[3] - f[1]] for f in faces]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", required=True, help="YuNetBench")
    parser.add_argument("--data", required=True)
    parser.add_argument("--pages", nargs="*", default=[])
    parser.add_argument("--factors", nargs="*", type=float, default=[1.5, 2.0, 3.0])
    parser.add_argument("--thresholds", nargs="*", type=float, default=[0.6, 0.7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    photos, pages = photos_and_pages(args.data, args.pages)
    factors = [1.0] + args.factors
    with tempfile.TemporaryDirectory() as folder:
        photo_copies = {f: [copy(os.path.join(args.data, a["image"]), f, folder, "p%d" % i) for i, a in enumerate(photos)]
                        for f in factors}
        page_copies = {f: [copy(path, f, folder, "d%d" % i) for i, path in enumerate(pages)] for f in factors}
        found = {f: run(args.gloss, [p for p, _ in photo_copies[f]], args.repeat) for f in factors}
        on_pages = {f: run(args.gloss, [p for p, _ in page_copies[f]], 1) for f in factors}

    def looks(index, factor, threshold, rule, copies=photo_copies, results=found):
        first = in_photo(results[1.0][index][0], copies[1.0][index][1], 0.6)
        if factor == 1.0:
            return first
        second = in_photo(results[factor][index][0], copies[factor][index][1], threshold)
        return merged(first, second, copies[1.0][index][1], rule)

    configurations = [("first look only (640 px)", 1.0, 0.6, None)]
    for factor in args.factors:
        for threshold in args.thresholds:
            for rule in ("nms", "add"):
                configurations.append(("+ %g x copy, score >= %.1f, %s" % (factor, threshold, rule), factor, threshold, rule))
    report = []
    print("%d photos (%d faces, %d under %d px in the 640 px copy), %d document pages; halves: even-numbered photos tune, odd measure"
          % (len(photos), sum(len(a["faces"]) for a in photos),
             sum(1 for a in photos for face in a["faces"] if face[3] * min(1.0, 640 / max(a["width"], a["height"])) < SMALL),
             SMALL, len(pages)))
    print("%-38s %-7s %9s %6s %6s %11s %11s %9s" % ("look", "half", "precision", "recall", "F1", "< 20 px", ">= 20 px", "doc faces"))
    for name, factor, threshold, rule in configurations:
        documents = sum(len(looks(i, factor, threshold, rule, page_copies, on_pages)) for i in range(len(pages)))
        for half, half_name in ((0, "tune"), (1, "measure")):
            hits = false = truth = 0
            small, large = [0, 0], [0, 0]
            for index, entry in enumerate(photos):
                if index % 2 != half:
                    continue
                boxes = as_boxes(looks(index, factor, threshold, rule))
                h, f = score(boxes, entry["faces"], entry.get("ignore", []))
                hits, false, truth = hits + h, false + f, truth + len(entry["faces"])
                first_scale = min(1.0, 640 / max(entry["width"], entry["height"]))
                for face in entry["faces"]:
                    tally = small if face[3] * first_scale < SMALL else large
                    tally[0] += any(iou(box, face) >= 0.5 for box in boxes)
                    tally[1] += 1
            precision, recall, value = f1(hits, false, truth)
            print("%-38s %-7s %9.3f %6.3f %6.3f %5d / %-3d %5d / %-3d %9d" % (name, half_name, precision, recall, value,
                  small[0], small[1], large[0], large[1], documents))
            report.append({"look": name, "half": half_name, "precision": precision, "recall": recall, "f1": value,
                           "small": small, "large": large, "document_faces": documents})
    print("\nnetwork time of a whole copy against the first look's (median over the photos, least of %d runs, warm):" % args.repeat)
    times = {}
    for factor in args.factors:
        times[factor] = statistics.median(found[factor][i][1] / found[1.0][i][1] for i in range(len(photos)))
        print("  %g x: %.2f" % (factor, times[factor]))
    print("\nfaces under %d px: the best IoU (and its score) of any candidate at 0.3 or more, per copy size" % (ADDED_BELOW))
    for index, entry in enumerate(photos):
        first_scale = min(1.0, 640 / max(entry["width"], entry["height"]))
        for face in entry["faces"]:
            if face[3] * first_scale >= ADDED_BELOW:
                continue
            cells = []
            for factor in factors:
                candidates = in_photo(found[factor][index][0], photo_copies[factor][index][1], 0.3)
                best = max([(iou(box, face), c[4]) for box, c in zip(as_boxes(candidates), candidates)] or [(0.0, 0.0)])
                cells.append("%g x %.2f (%.2f)" % (factor, best[0], best[1]))
            print("  %-7s %5.1f px  %-34s %s" % ("tune" if index % 2 == 0 else "measure", face[3] * first_scale,
                                                entry["image"][-34:], "  ".join(cells)))
    if args.json:
        json.dump({"looks": report, "time": times}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
