#!/usr/bin/python3
"""Agreement and speed of Gloss's cascade detector against OpenCV 4's CascadeClassifier.

For each cascade (frontalface_default, frontalface_alt2, lbpcascade_frontalface_improved) both
detectors run on the same grey pixels with the same parameters (scaleFactor 1.1, minNeighbors 3,
minSize 30 by default). Printed per cascade:

  agreement  share of OpenCV's faces that Gloss also finds (IoU >= 0.5), and vice versa
  time       median over images of (Gloss time / OpenCV time), single-threaded
             (cv2.setNumThreads(1), FaceBench --threads 1) and on all cores. Each time is the
             fastest of --repeat runs (the machine is shared: the minimum is the least disturbed
             measure of the work), and both sides run back to back per image, so that load
             from other processes hits them alike.

Images: fixtures/faces/astronaut.png, fixtures/faces/astronaut-trio.png, synthetic canvases with
the astronaut pasted at several scales and positions (generated here, seeded), and text fixtures
(no faces). Everything is converted to grey once with OpenCV and written as PGM, so both sides
see identical bytes.

Needs Debian's python3-opencv (apt-get install -y python3-opencv) and the FaceBench executable
(swift build -c release in a package holding bench/faces/FaceBench), given with --gloss.

  /usr/bin/python3 bench/faces/compare.py --gloss PATH/TO/FaceBench [--repeat 7] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CASCADES = [
    "haarcascades/haarcascade_frontalface_default.xml",
    "haarcascades/haarcascade_frontalface_alt2.xml",
    "lbpcascades/lbpcascade_frontalface_improved.xml",
]


def synthetic_images():
    """Canvases with the astronaut pasted at several scales, positions and mirrorings."""
    rng = np.random.default_rng(7)
    astro = cv2.imread(os.path.join(ROOT, "fixtures/faces/astronaut.png"), cv2.IMREAD_GRAYSCALE)
    face = astro[30:230, 125:325]  # head and shoulders-free crop around the face

    def background(w, h):
        noise = rng.normal(128, 40, (h // 8 + 1, w // 8 + 1)).clip(0, 255).astype(np.uint8)
        return cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)

    out = {}
    canvas = background(1024, 768)
    for size, (x, y), flip in [(256, (40, 60), False), (180, (600, 100), True), (360, (560, 380), False)]:
        tile = cv2.resize(astro, (size, size), interpolation=cv2.INTER_AREA)
        canvas[y:y + size, x:x + size] = tile[:, ::-1] if flip else tile
    out["synthetic-scales"] = canvas

    canvas = background(1280, 720)
    x = 20
    for size in [48, 72, 110, 160, 240]:
        tile = cv2.resize(face, (size, size), interpolation=cv2.INTER_AREA)
        y = 40 + (x * 7) % (720 - size - 40)
        canvas[y:y + size, x:x + size] = tile
        x += size + 30
    out["synthetic-faces"] = canvas

    canvas = np.full((600, 800), 235, np.uint8)
    for i, (size, x, y) in enumerate([(120, 30, 30), (90, 300, 200), (150, 560, 60), (64, 120, 420), (200, 420, 360)]):
        tile = cv2.resize(face, (size, size), interpolation=cv2.INTER_LINEAR)
        if i % 2:
            tile = tile[:, ::-1]
        canvas[y:y + size, x:x + size] = tile
    out["synthetic-plain"] = canvas
    return out


def load_images(directory):
    images = {}
    for rel in ["faces/astronaut.png", "faces/astronaut-trio.png", "text/sans.png", "text/upright.jpg"]:
        g = cv2.imread(os.path.join(ROOT, "fixtures", rel), cv2.IMREAD_GRAYSCALE)
        if g is not None:
            images[os.path.splitext(os.path.basename(rel))[0]] = g
    images.update(synthetic_images())
    paths = {}
    for name, g in images.items():
        path = os.path.join(directory, name + ".pgm")
        cv2.imwrite(path, g)
        paths[name] = path
    return images, paths


def iou(a, b):
    ax, ay, aw, ah = a[:4]
    bx, by, bw, bh = b[:4]
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union else 0.0


def matched(reference, candidates, threshold=0.5):
    """How many of `reference` have a distinct partner in `candidates` with IoU >= threshold."""
    pairs = sorted(((iou(r, c), i, j) for i, r in enumerate(reference) for j, c in enumerate(candidates)), reverse=True)
    used_r, used_c, count = set(), set(), 0
    for score, i, j in pairs:
        if score < threshold:
            break
        if i in used_r or j in used_c:
            continue
        used_r.add(i)
        used_c.add(j)
        count += 1
    return count


def opencv_run(classifier, grey, args, threads, repeat):
    cv2.setNumThreads(threads)
    times, boxes = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        found = classifier.detectMultiScale(grey, args.scale, args.neighbors, minSize=(args.min, args.min))
        times.append((time.perf_counter() - t0) * 1000)
        boxes = [list(map(int, r)) for r in found] if len(found) else []
    return boxes, min(times)


def gloss_run(args, cascade, path, threads):
    cmd = [args.gloss, "--cascade", cascade, "--scale", str(args.scale), "--neighbors", str(args.neighbors),
           "--min", str(args.min), "--threads", str(threads), "--repeat", str(args.repeat), path]
    record = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return [b[:4] for b in record["boxes"]], min(record["ms"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gloss", default="/tmp/facepkg/.build/release/FaceBench", help="FaceBench executable")
    parser.add_argument("--scale", type=float, default=1.1)
    parser.add_argument("--neighbors", type=int, default=3)
    parser.add_argument("--min", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", help="also write the detailed results here")
    args = parser.parse_args()

    cores = os.cpu_count() or 1
    report = {"opencv": cv2.__version__, "cores": cores, "parameters": vars(args).copy(), "cascades": {}}
    with tempfile.TemporaryDirectory() as directory:
        images, paths = load_images(directory)
        names = list(images)
        print(f"OpenCV {cv2.__version__}, {cores} cores, {len(names)} images: {', '.join(names)}")
        print(f"scaleFactor {args.scale}, minNeighbors {args.neighbors}, minSize {args.min}, fastest of {args.repeat} runs\n")
        print(f"{'cascade':34} {'OpenCV':>6} {'Gloss':>6} {'G finds CV':>10} {'CV finds G':>10} {'time 1 core':>11} {'time all':>9}")
        for rel in CASCADES:
            cascade = "/usr/share/opencv4/" + rel
            classifier = cv2.CascadeClassifier(cascade)
            total_cv = total_gloss = found_by_gloss = found_by_cv = 0
            ratios = {1: [], 0: []}
            per_image = {}
            for name in names:
                grey = images[name]
                cv_boxes, cv_ms1 = opencv_run(classifier, grey, args, 1, args.repeat)
                g_boxes, g_ms1 = gloss_run(args, cascade, paths[name], 1)
                _, cv_ms_all = opencv_run(classifier, grey, args, cores, args.repeat)
                g_boxes_all, g_ms_all = gloss_run(args, cascade, paths[name], 0)
                assert sorted(g_boxes) == sorted(g_boxes_all), "Gloss result depends on threads"
                total_cv += len(cv_boxes)
                total_gloss += len(g_boxes)
                found_by_gloss += matched(cv_boxes, g_boxes)
                found_by_cv += matched(g_boxes, cv_boxes)
                ratios[1].append(g_ms1 / cv_ms1)
                ratios[0].append(g_ms_all / cv_ms_all)
                per_image[name] = {"opencv": cv_boxes, "gloss": g_boxes, "opencv_ms": [cv_ms1, cv_ms_all],
                                   "gloss_ms": [g_ms1, g_ms_all]}
            share_g = found_by_gloss / total_cv if total_cv else 1.0
            share_cv = found_by_cv / total_gloss if total_gloss else 1.0
            r1, r_all = statistics.median(ratios[1]), statistics.median(ratios[0])
            print(f"{os.path.basename(rel):34} {total_cv:6} {total_gloss:6} {share_g:10.3f} {share_cv:10.3f} {r1:11.2f} {r_all:9.2f}")
            report["cascades"][rel] = {"opencv_faces": total_cv, "gloss_faces": total_gloss,
                                       "gloss_finds_opencv": share_g, "opencv_finds_gloss": share_cv,
                                       "time_ratio_1": r1, "time_ratio_all": r_all, "images": per_image}
    print("\ntime = median over images of Gloss ms / OpenCV ms (below 1: Gloss is faster)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
