#!/usr/bin/python3
"""The product's faces against YuNetBench's on the same photos: F1 per half, and photo by photo.

Usage:
  bench/faces/paths.py --gloss .build/release/gloss --yunet .build/release/YuNetBench --data DIR
                       [--faces-command] [--pages DIR...] [--json FILE] [-- GLOSS ANNOTATE ARGUMENTS...]

The product path is `gloss annotate --no-text --jobs 1 --format json` on every photo of
DIR/annotations.json at once, its faces read from the page JSON (page pixels); with
--faces-command, `gloss faces PHOTO` is run on each photo as well. The bench paths are YuNetBench
on a 640 px copy made by Pillow's box filter (the copy bench/faces/yunet.py, shapes.py and
smallfaces.py score), boxes scaled back to the photo; and YuNetBench --fit 640, on the copy
Gloss's own resampler makes, as the pipeline does. Both are scored at IoU 0.5 as those scripts
score them (yunet.score), on the halves they use (even-numbered photos tune, odd measure).

With --pages, the document pages (DIR's documents and every image in each --pages folder, such as
bench/ocr-quality's pages) go through the product path too, and every face it reports on them is
listed: a document should have none but its printed portraits.

Prints precision, recall and F1 per half and path, then, for each path and the next, each photo
on which they do not find the same faces: per face found by one path only, its box, score and whether it is a true
face, and the best IoU and score of the other path's boxes on it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from yunet import f1, iou, photos_and_pages, resized, score


def gloss_copy(yunet, data, photos):
    """Per photo: YuNetBench's faces at 0.6 on Gloss's own 640 px copy (--fit), in the photo's
    pixels as the page JSON gives them: each axis scaled by its own ratio, rounded."""
    out = subprocess.run([yunet, "--threshold", "0.6", "--repeat", "1", "--fit", "640"]
                         + [os.path.join(data, a["image"]) for a in photos], check=True, capture_output=True, text=True).stdout
    found = []
    for entry, line in zip(photos, out.splitlines()):
        copy = json.loads(line)
        sx, sy = entry["width"] / copy["width"], entry["height"] / copy["height"]
        found.append([[round(f[0] * sx), round(f[1] * sy), round(f[2] * sx) - round(f[0] * sx), round(f[3] * sy) - round(f[1] * sy),
                       f[4]] for f in copy["faces"]])
    return found


def product(gloss, inputs, folder, extra):
    """Per input: [[x, y, w, h, score], ...] in its pixels, from one --no-text batch."""
    out = os.path.join(folder, "annotate%d" % len(os.listdir(folder)))
    run = subprocess.run([gloss, "annotate"] + inputs + ["-o", out, "--no-text", "--jobs", "1", "--format", "json", "-q"] + extra,
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("gloss annotate failed: " + run.stderr)
    manifest = json.load(open(os.path.join(out, "gloss.json")))
    by_source = {}
    for page in manifest["pages"]:
        report = json.load(open(os.path.join(out, page["outputs"]["json"])))
        by_source[os.path.realpath(report["source"])] = report
    return [boxes_of(by_source[os.path.realpath(path)]) for path in inputs]


def faces_command(gloss, inputs, extra):
    found = []
    for path in inputs:
        run = subprocess.run([gloss, "faces", path] + extra, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("gloss faces failed on %s: %s" % (path, run.stderr))
        found.append(boxes_of(json.loads(run.stdout)))
    return found


def boxes_of(report):
    return [[f["box"]["x"], f["box"]["y"], f["box"]["width"], f["box"]["height"], f["confidence"]] for f in report["faces"]]


def bench(yunet, data, photos, folder):
    """Per photo: YuNetBench's faces at 0.6 (shape policy on) on the Pillow copy, in the photo's pixels."""
    stems = [resized(os.path.join(data, a["image"]), 640, folder) for a in photos]
    out = subprocess.run([yunet, "--threshold", "0.6", "--repeat", "1"] + [stem + ".png" for stem, _ in stems],
                         check=True, capture_output=True, text=True).stdout
    found = []
    for (_, scale), line in zip(stems, out.splitlines()):
        found.append([[f[0] / scale, f[1] / scale, (f[2] - f[0]) / scale, (f[3] - f[1]) / scale, f[4]]
                      for f in json.loads(line)["faces"]])
    return found


def tally(photos, found, half):
    hits = false = truth = 0
    for index, (entry, boxes) in enumerate(zip(photos, found)):
        if index % 2 != half:
            continue
        h, f = score([b[:4] for b in boxes], entry["faces"], entry.get("ignore", []))
        hits, false, truth = hits + h, false + f, truth + len(entry["faces"])
    return hits, false, truth


def verdict(box, entry):
    if any(iou(box[:4], face) >= 0.5 for face in entry["faces"]):
        return "true face (IoU %.2f)" % max(iou(box[:4], face) for face in entry["faces"])
    best = max([iou(box[:4], face) for face in entry["faces"]] or [0.0])
    return "no face (best IoU %.2f)" % best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", required=True)
    parser.add_argument("--yunet", required=True, help="YuNetBench")
    parser.add_argument("--data", required=True)
    parser.add_argument("--faces-command", action="store_true", help="also run `gloss faces` on each photo and page")
    parser.add_argument("--pages", nargs="*", default=[])
    parser.add_argument("--json")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    photos, pages = photos_and_pages(args.data, args.pages)
    inputs = [os.path.join(args.data, a["image"]) for a in photos]
    with tempfile.TemporaryDirectory() as folder:
        paths = {"YuNetBench, Pillow copy": bench(args.yunet, args.data, photos, folder),
                 "YuNetBench, Gloss's copy": gloss_copy(args.yunet, args.data, photos),
                 "gloss annotate --no-text": product(args.gloss, inputs, folder, extra)}
        if args.faces_command:
            paths["gloss faces"] = faces_command(args.gloss, inputs, extra)
        on_pages = {}
        if args.pages:
            on_pages["gloss annotate --no-text"] = product(args.gloss, pages, folder, extra)
            if args.faces_command:
                on_pages["gloss faces"] = faces_command(args.gloss, pages, extra)
    print("%d photos (%d faces); halves: even-numbered photos tune, odd measure" % (len(photos), sum(len(a["faces"]) for a in photos)))
    print("%-28s %-8s %9s %6s %6s %5s %5s" % ("path", "half", "precision", "recall", "F1", "hits", "false"))
    report = {}
    for name, found in paths.items():
        for half, half_name in ((0, "tune"), (1, "measure")):
            hits, false, truth = tally(photos, found, half)
            precision, recall, value = f1(hits, false, truth)
            print("%-28s %-8s %9.3f %6.3f %6.3f %5d %5d" % (name, half_name, precision, recall, value, hits, false))
            report["%s/%s" % (name, half_name)] = {"precision": precision, "recall": recall, "f1": value, "hits": hits, "false": false}
    names = list(paths)
    for reference, other in zip(names, names[1:]):
        print("\nphotos where [1] %s and [2] %s differ (faces found by one only: IoU under 0.5 with every face of the other):"
              % (reference, other))
        for index, entry in enumerate(photos):
            mine, theirs = paths[reference][index], paths[other][index]
            only_mine = [b for b in mine if not any(iou(b[:4], c[:4]) >= 0.5 for c in theirs)]
            only_theirs = [c for c in theirs if not any(iou(c[:4], b[:4]) >= 0.5 for b in mine)]
            scores = [score([b[:4] for b in found], entry["faces"], entry.get("ignore", [])) for found in (mine, theirs)]
            if not only_mine and not only_theirs and scores[0] == scores[1]:
                continue
            print("  %-7s %s: hits/false %d/%d against %d/%d" % ("tune" if index % 2 == 0 else "measure", entry["image"],
                                                               scores[0][0], scores[0][1], scores[1][0], scores[1][1]))
            for label, boxes, others in (("[1] only", only_mine, theirs), ("[2] only", only_theirs, mine)):
                for box in boxes:
                    near = max([(iou(box[:4], c[:4]), c[4]) for c in others] or [(0.0, 0.0)])
                    print("    %-12s [%4.0f %4.0f %4.0f %4.0f] score %.3f  %s; the other's nearest IoU %.2f (score %.3f)"
                          % (label, box[0], box[1], box[2], box[3], box[4], verdict(box, entry), near[0], near[1]))
            for a, b in ((x, y) for x in mine for y in theirs if iou(x[:4], y[:4]) >= 0.5):
                va, vb = verdict(a, entry), verdict(b, entry)
                if va.startswith("true") != vb.startswith("true"):
                    print("    same face, different box: [1] %s %s; [2] %s %s" % ([round(v) for v in a[:4]], va,
                                                                                        [round(v) for v in b[:4]], vb))
    for name, found in on_pages.items():
        print("\nfaces %s reports on %d document pages: %d" % (name, len(pages), sum(len(faces) for faces in found)))
        for path, faces in zip(pages, found):
            for face in faces:
                print("  %.3f  %4d x %-4d px at (%d, %d)  %s" % (face[4], face[2], face[3], face[0], face[1], path))
    if args.json:
        json.dump({"scores": report, "found": {name: found for name, found in paths.items()},
                   "pages": pages, "on_pages": on_pages}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
