#!/usr/bin/python3
"""The shape of YuNet's boxes on real photos and document pages: what the shape policy stands on.

Usage:
  bench/faces/shapes.py --gloss .build/release/YuNetBench --data DIR [--pages DIR...] [--threshold 0.25]

Every photo of DIR/annotations.json and every page (the documents there, and the images in each
--pages folder, such as bench/ocr-quality's pages) is reduced to 640 px by Gloss's own resampler,
as the pipeline scans it (YuNetBench --fit 640), and run through YuNetBench --raw at a low
threshold. Prints the height / width of the boxes
matching a true face (IoU >= 0.5), the candidates on pages above the threshold, and precision,
recall and F1 at 0.6 on each half of the photos (the even-numbered ones tune, the odd ones
measure), with the shape policy (YuNetBench without --raw) and without.
"""

import argparse
import json
import os
import subprocess
import sys

from PIL import Image

from yunet import f1, iou, photos_and_pages, score


def run(driver, paths, threshold, raw):
    """Per image: its faces in the 640 px copy's pixels, and the copy's scale across and down."""
    out = subprocess.run([driver, "--threshold", str(threshold), "--repeat", "1", "--fit", "640"] + (["--raw"] if raw else []) + paths,
                         check=True, capture_output=True, text=True).stdout
    found = []
    for path, line in zip(paths, out.splitlines()):
        copy = json.loads(line)
        width, height = Image.open(path).size
        found.append((copy["faces"], (copy["width"] / width, copy["height"] / height)))
    return found


def in_photo(face, scale):
    return [face[0] / scale[0], face[1] / scale[1], (face[2] - face[0]) / scale[0], (face[3] - face[1]) / scale[1]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", required=True, help="YuNetBench")
    parser.add_argument("--data", required=True)
    parser.add_argument("--pages", nargs="*", default=[])
    parser.add_argument("--threshold", type=float, default=0.25)
    args = parser.parse_args()
    photos, pages = photos_and_pages(args.data, args.pages)
    paths = [os.path.join(args.data, a["image"]) for a in photos]
    found = {raw: run(args.gloss, paths, min(args.threshold, 0.6), raw) for raw in (True, False)}
    on_pages = {raw: [faces for faces, _ in run(args.gloss, pages, args.threshold, raw)] for raw in (True, False)}
    aspects = []
    for entry, (faces, scale) in zip(photos, found[True]):
        for face in faces:
            box = in_photo(face, scale)
            if face[4] >= 0.6 and any(iou(box, truth) >= 0.5 for truth in entry["faces"]):
                aspects.append(((face[3] - face[1]) / (face[2] - face[0]), face[4], face[2] - face[0], entry["image"]))
    aspects.sort()
    print("true faces at 0.6 or more on %d photos: %d; height / width min %.3f, 5th percentile %.3f, median %.3f, max %.3f"
          % (len(photos), len(aspects), aspects[0][0], aspects[len(aspects) // 20][0], aspects[len(aspects) // 2][0], aspects[-1][0]))
    for aspect, value, width, image in aspects[:3]:
        print("  %.3f  score %.3f  %4.0f px wide  %s" % (aspect, value, width, image))
    print("\ncandidates at %.2f or more on %d document pages (640 px copies):" % (args.threshold, len(pages)))
    for path, faces, kept in zip(pages, on_pages[True], on_pages[False]):
        for face in faces:
            admitted = any(face[:5] == k[:5] for k in kept)
            print("  %.3f  %3.0f px  height / width %.3f  %s  %s" % (face[4], face[2] - face[0], (face[3] - face[1]) / (face[2] - face[0]),
                  "kept" if admitted else "dropped by the shape policy", path))
    for raw in (True, False):
        print("\n%s:" % ("without the shape policy" if raw else "with the shape policy"))
        for half, name in ((0, "tune"), (1, "measure")):
            hits = false = truth = 0
            for index, (entry, (faces, scale)) in enumerate(zip(photos, found[raw])):
                if index % 2 != half:
                    continue
                boxes = [in_photo(f, scale) for f in faces if f[4] >= 0.6]
                h, f = score(boxes, entry["faces"], entry.get("ignore", []))
                hits, false, truth = hits + h, false + f, truth + len(entry["faces"])
            precision, recall, value = f1(hits, false, truth)
            page_faces = sum(1 for faces in on_pages[raw] for face in faces if face[4] >= 0.6)
            print("  %-8s precision %.3f recall %.3f F1 %.3f (%d faces)" % (name, precision, recall, value, truth))
        print("  faces at 0.6 or more on the pages: %d" % page_faces)


if __name__ == "__main__":
    sys.exit(main())
