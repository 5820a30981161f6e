#!/usr/bin/python3
"""Small faces: recall under and over 20 px, with and without a second, larger look.

Usage:
  bench/faces/smallfaces.py --gloss .build/release/YuNetBench --data DIR [--pages DIR...]
                            [--factors 1.5 2] [--thresholds 0.6 0.7] [--repeat 3] [--json FILE]

Every copy is the one Gloss's own resampler makes (YuNetBench --fit, as the pipeline's face
stage reads it), so the first look's figures are `gloss annotate --no-text`'s (bench/faces/
paths.py). The first look is the pipeline's: each photo of DIR/annotations.json reduced to 640 px
on its longest side, YuNet at 0.6 with the shape policy. A second look is one larger copy of the
whole photo, FACTOR times 640 px on its longest side, or the original itself; the pipeline never
enlarges a picture, so a copy is at most the original (a photo of 1,200 px has the same 2 x copy
and original). Its faces smaller than 24 px in the first copy's scale are added to the first
look's, merged two ways: by non-maximum suppression in the photo's pixels (IoU 0.45, best score
first, as YuNet merges its own candidates), or keeping every first-look face and adding only
faces that overlap none of them (IoU <= 0.2). A face is small when its annotated height, in the
640 px copy's scale, is under 20 px.

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

from PIL import Image

from yunet import f1, iou, photos_and_pages, score

SMALL = 20
ADDED_BELOW = 24


ORIGINAL = 0.0  # the look at the original size, in the lists of factors


def run(driver, paths, factor, repeat):
    """Per image: (faces as [x1, y1, x2, y2, score] at 0.3 with the shape policy, in the image's
    pixels; least ms; the copy's scale over the image's, across and down) for the copy at
    `factor` x 640 px (at most the original) or, for ORIGINAL, the original."""
    fit = [] if factor == ORIGINAL else ["--fit", str(int(round(640 * factor)))]
    results = []
    for start in range(0, len(paths), 40):
        out = subprocess.run([driver, "--threshold", "0.3", "--repeat", str(repeat)] + fit + paths[start:start + 40],
                             check=True, capture_output=True, text=True).stdout
        for path, line in zip(paths[start:start + 40], out.splitlines()):
            copy = json.loads(line)
            width, height = Image.open(path).size
            sx, sy = copy["width"] / width, copy["height"] / height
            faces = [[f[0] / sx, f[1] / sy, f[2] / sx, f[3] / sy, f[4]] for f in copy["faces"]]
            results.append((faces, min(copy["ms"]), sx))
    return results


def overlap(a, b):
    """IoU of two faces given by their corners."""
    return iou(*as_boxes([a, b]))


def above(faces, threshold):
    return [f for f in faces if f[4] >= threshold]


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
    parser.add_argument("--factors", nargs="*", type=float, default=[1.5, 2.0],
                        help="second looks at FACTOR x 640 px; the original is always one")
    parser.add_argument("--thresholds", nargs="*", type=float, default=[0.6, 0.7])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    photos, pages = photos_and_pages(args.data, args.pages)
    seconds = args.factors + [ORIGINAL]
    factors = [1.0] + seconds
    photo_paths = [os.path.join(args.data, a["image"]) for a in photos]
    found = {f: run(args.gloss, photo_paths, f, args.repeat) for f in factors}
    on_pages = {f: run(args.gloss, pages, f, 1) for f in factors}

    def looks(index, factor, threshold, rule, results=found):
        first = above(results[1.0][index][0], 0.6)
        if factor == 1.0:
            return first
        return merged(first, above(results[factor][index][0], threshold), results[1.0][index][2], rule)

    def named(factor):
        return "the original" if factor == ORIGINAL else "%g x 640 px" % factor

    configurations = [("first look only (640 px)", 1.0, 0.6, None)]
    for factor in seconds:
        for threshold in args.thresholds:
            for rule in ("nms", "add"):
                configurations.append(("+ %s, >= %.1f, %s" % (named(factor), threshold, rule), factor, threshold, rule))
    report = []
    print("%d photos (%d faces, %d under %d px in the 640 px copy), %d document pages; halves: even-numbered photos tune, odd measure"
          % (len(photos), sum(len(a["faces"]) for a in photos),
             sum(1 for a in photos for face in a["faces"] if face[3] * min(1.0, 640 / max(a["width"], a["height"])) < SMALL),
             SMALL, len(pages)))
    print("%-38s %-7s %9s %6s %6s %11s %11s %9s" % ("look", "half", "precision", "recall", "F1", "< 20 px", ">= 20 px", "doc faces"))
    for name, factor, threshold, rule in configurations:
        documents = sum(len(looks(i, factor, threshold, rule, on_pages)) for i in range(len(pages)))
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
    for factor in seconds:
        times[named(factor)] = statistics.median(found[factor][i][1] / found[1.0][i][1] for i in range(len(photos)))
        print("  %s: %.2f" % (named(factor), times[named(factor)]))
    print("\nfaces under %d px: the best IoU (and its score) of any candidate at 0.3 or more, per copy size" % (ADDED_BELOW))
    for index, entry in enumerate(photos):
        first_scale = min(1.0, 640 / max(entry["width"], entry["height"]))
        for face in entry["faces"]:
            if face[3] * first_scale >= ADDED_BELOW:
                continue
            cells = []
            for factor in factors:
                candidates = found[factor][index][0]
                best = max([(iou(box, face), c[4]) for box, c in zip(as_boxes(candidates), candidates)] or [(0.0, 0.0)])
                cells.append("%s %.2f (%.2f)" % ("orig." if factor == ORIGINAL else "%g x" % factor, best[0], best[1]))
            print("  %-7s %5.1f px  %-34s %s" % ("tune" if index % 2 == 0 else "measure", face[3] * first_scale,
                                                entry["image"][-34:], "  ".join(cells)))
    if args.json:
        json.dump({"looks": report, "time": times}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
