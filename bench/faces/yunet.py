#!/usr/bin/python3
"""Gloss's YuNet against upstream's C++ and OpenCV's Haar cascade: time, and F1 on real photos.

Usage:
  bench/faces/yunet.py --gloss .build/release/YuNetBench [--cascade-bench .build/release/FaceBench]
                       [--reference PATH] [--data DIR] [--repeat N] [--json FILE]

Time: every image is resized so its longest side is 640 px (Pillow's BOX filter) and written
as PNG for Gloss and PPM for the reference; each side runs it N times on one thread and the
median is kept. The reference is upstream's C++ built by bench/faces/yunet-reference/build.sh
(AVX2, one thread); without it that column is skipped with a message. OpenCV's Haar cascade
(frontalface_default, 1.1, 3, 30 px, one thread) runs on the grey of the same pixels.

Accuracy: with --data DIR holding annotations.json (a list of {"image", "faces": [[x, y, w, h],
...]}), every detector runs on every photo and is scored against the boxes at IoU >= 0.5
(greedy matching, best score first): precision, recall and F1, for YuNet at several copy sizes
and score thresholds, Gloss's cascade at its default 1024 px, and OpenCV's Haar.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import cv2
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = ["fixtures/faces/astronaut.png", "fixtures/faces/astronaut-trio.png", "fixtures/text/sans.png",
            "fixtures/scans/page.png"]
SIZES = [480, 640, 800, 960, 1280]
THRESHOLDS = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]


def resized(path, longest, folder):
    """The image at `longest` px on its longest side (never enlarged), as PNG and PPM; and its scale."""
    image = Image.open(path).convert("RGB")
    scale = min(1.0, longest / max(image.size))
    size = (max(1, int(image.size[0] * scale + 0.5)), max(1, int(image.size[1] * scale + 0.5)))
    if size != image.size:
        image = image.resize(size, Image.Resampling.BOX)
    stem = os.path.join(folder, "%s-%d" % (os.path.basename(path).rsplit(".", 1)[0], longest))
    image.save(stem + ".png")
    image.save(stem + ".ppm")
    image.convert("L").save(stem + ".pgm")
    return stem, image.size[0] / Image.open(path).size[0]


def run_gloss(driver, pngs, threshold, repeat):
    out = subprocess.run([driver, "--threshold", str(threshold), "--repeat", str(repeat)] + pngs,
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def run_reference(reference, ppm, repeat):
    out = subprocess.run([reference, "--runs", str(repeat), ppm], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def haar(grey_path, repeat):
    cv2.setNumThreads(1)
    classifier = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
    grey = cv2.imread(grey_path, cv2.IMREAD_GRAYSCALE)
    times, found = [], []
    for _ in range(repeat):
        start = cv2.getTickCount()
        found = classifier.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=3, minSize=(30, 30))
        times.append((cv2.getTickCount() - start) / cv2.getTickFrequency() * 1000)
    return statistics.median(times), [list(map(int, box)) for box in found]


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    w, h = min(ax2, bx2) - max(a[0], b[0]), min(ay2, by2) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (a[2] * a[3] + b[2] * b[3] - w * h)



def photos_and_pages(data, folders=()):
    """The annotated photos of `data` (its annotations.json entries whose image is there), and
    the document pages to look for false faces on: its own, then every image in `folders`."""
    listed = [a for a in json.load(open(os.path.join(data, "annotations.json")))
              if os.path.exists(os.path.join(data, a["image"]))]
    photos = [a for a in listed if a.get("role") != "document"]
    pages = [os.path.join(data, a["image"]) for a in listed if a.get("role") == "document"]
    for folder in folders:
        pages += sorted(os.path.join(folder, name) for name in os.listdir(folder)
                        if name.lower().endswith((".png", ".jpg", ".jpeg", ".tif", ".tiff")))
    return photos, pages


def score(found, truth, ignore=()):
    """(hits, false) for found boxes, best first: each takes the best unmatched truth at IoU >= 0.5;
    one that matches no face but an ignore region (IoU >= 0.5, or its centre inside) counts as
    neither, like WIDER FACE's ignored faces."""
    taken, hits, false = set(), 0, 0
    for box in found:
        best, which = 0.5, None
        for index, face in enumerate(truth):
            overlap = iou(box, face)
            if index not in taken and overlap >= best:
                best, which = overlap, index
        if which is not None:
            taken.add(which)
            hits += 1
            continue
        cx, cy = box[0] + box[2] / 2, box[1] + box[3] / 2
        if any(iou(box, region) >= 0.5 or (region[0] <= cx <= region[0] + region[2] and region[1] <= cy <= region[1] + region[3])
               for region in ignore):
            continue
        false += 1
    return hits, false


def f1(hits, false, truth):
    found = hits + false
    precision = hits / found if found else 1.0
    recall = hits / truth if truth else 1.0
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)


def timing(args, folder):
    print("time per image at 640 px, one thread, median of %d (ms)" % args.repeat)
    print("%-28s %9s %9s %9s %9s %9s" % ("image", "gloss", "upstream", "ratio", "opencv", "ratio"))
    ratios, haar_ratios = [], []
    for path in FIXTURES + args.extra:
        stem, _ = resized(path, 640, folder)
        mine = statistics.median(run_gloss(args.gloss, [stem + ".png"], 0.6, args.repeat)[0]["ms"])
        theirs = run_reference(args.reference, stem + ".ppm", args.repeat)["time_ms"]["median"] if args.reference else None
        cv_ms, _ = haar(stem + ".pgm", args.repeat)
        if theirs:
            ratios.append(mine / theirs)
        haar_ratios.append(mine / cv_ms)
        print("%-28s %9.1f %9s %9s %9.1f %9.2f" % (os.path.basename(path)[:28], mine,
              "%.1f" % theirs if theirs else "-", "%.2f" % (mine / theirs) if theirs else "-", cv_ms, mine / cv_ms))
    if ratios:
        print("median ratio gloss / upstream: %.2f (target <= 1.0, stretch 0.8)" % statistics.median(ratios))
    else:
        print("upstream's C++ not found: build it with bench/faces/yunet-reference/build.sh and pass --reference")
    print("median ratio gloss / opencv haar: %.2f" % statistics.median(haar_ratios))
    return {"upstream": statistics.median(ratios) if ratios else None, "haar": statistics.median(haar_ratios)}


def annotated(data):
    """The annotated images that are there (a machine without every source has only some)."""
    listed = json.load(open(os.path.join(data, "annotations.json")))
    present = [a for a in listed if os.path.exists(os.path.join(data, a["image"]))]
    if len(present) < len(listed):
        print("%d of the %d annotated images are here (see bench/faces/data/README.md)" % (len(present), len(listed)))
    return present


def accuracy(args, folder):
    annotations = annotated(args.data)
    photos = [a for a in annotations if a.get("role") != "document"]
    documents = [a for a in annotations if a.get("role") == "document"]
    truth = sum(len(a["faces"]) for a in photos)
    print("\nF1 at IoU 0.5 on %d photos (%d faces, some photos without any) from %s; faces found on %d document pages"
          % (len(photos), truth, args.data, len(documents)))
    results = {}
    for size in SIZES:
        stems = {}
        for entry in annotations:
            stems[entry["image"]] = resized(os.path.join(args.data, entry["image"]), size, folder)
        runs = run_gloss(args.gloss, [stems[a["image"]][0] + ".png" for a in annotations], min(THRESHOLDS), 1)
        for threshold in THRESHOLDS:
            hits = false = on_documents = 0
            for entry, run in zip(annotations, runs):
                scale = stems[entry["image"]][1]
                boxes = [[f[0] / scale, f[1] / scale, (f[2] - f[0]) / scale, (f[3] - f[1]) / scale]
                         for f in run["faces"] if f[4] >= threshold]
                if entry.get("role") == "document":
                    on_documents += len(boxes)
                else:
                    h, f = score(boxes, entry["faces"], entry.get("ignore", []))
                    hits, false = hits + h, false + f
            precision, recall, value = f1(hits, false, truth)
            results[(size, threshold)] = (precision, recall, value, on_documents)
    print("%-26s %9s %9s %9s %9s" % ("YuNet: size, threshold", "precision", "recall", "F1", "doc faces"))
    for (size, threshold), (p, r, value, docs) in sorted(results.items()):
        print("%-26s %9.3f %9.3f %9.3f %9d" % ("%d px, %.2f" % (size, threshold), p, r, value, docs))
    best = max(results.items(), key=lambda item: item[1][2])
    print("best: %d px at %.2f, F1 %.3f" % (best[0][0], best[0][1], best[1][2]))

    def tally(name, boxes_of):
        hits = false = docs = 0
        for entry in annotations:
            boxes = boxes_of(entry)
            if entry.get("role") == "document":
                docs += len(boxes)
            else:
                h, f = score(boxes, entry["faces"], entry.get("ignore", []))
                hits, false = hits + h, false + f
        p, r, value = f1(hits, false, truth)
        print("%-26s %9.3f %9.3f %9.3f %9d" % (name, p, r, value, docs))

    def opencv(entry):
        stem, _ = resized(os.path.join(args.data, entry["image"]), 100000, folder)
        return haar(stem + ".pgm", 1)[1]
    tally("OpenCV Haar, full size", opencv)
    if args.cascade_bench:
        def cascade(entry):
            stem, scale = resized(os.path.join(args.data, entry["image"]), 1024, folder)
            out = subprocess.run([args.cascade_bench, "--faces", "--repeat", "1", stem + ".pgm"], check=True,
                                 capture_output=True, text=True).stdout
            return [[b[0] / scale, b[1] / scale, b[2] / scale, b[3] / scale] for b in json.loads(out)["boxes"]]
        tally("Gloss cascade, 1024 px", cascade)
    return {"%d,%.2f" % key: value for key, value in results.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", required=True, help="YuNetBench")
    parser.add_argument("--cascade-bench", help="FaceBench, to score Gloss's cascade too")
    parser.add_argument("--reference", default=os.path.join(os.environ.get("YUNET_REFERENCE_BUILD", "/tmp/yunet-reference"), "reference"))
    parser.add_argument("--data", help="a folder with annotations.json and the photos it names")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--json")
    args = parser.parse_args()
    args.extra = []
    if not os.path.exists(args.reference):
        args.reference = None
    os.chdir(ROOT)
    with tempfile.TemporaryDirectory() as folder:
        if args.data and os.path.exists(os.path.join(args.data, "annotations.json")):
            annotations = annotated(args.data)
            args.extra = [os.path.join(args.data, a["image"]) for a in annotations if len(a["faces"]) >= 3][:8]
        report = {"time": timing(args, folder)}
        if args.data and os.path.exists(os.path.join(args.data, "annotations.json")):
            report["accuracy"] = accuracy(args, folder)
        else:
            print("\nno annotated photos (--data DIR with annotations.json): F1 skipped")
    if args.json:
        json.dump(report, open(args.json, "w"), indent=1, default=str)


if __name__ == "__main__":
    sys.exit(main())
