#!/usr/bin/env python3
"""Record Tests/NeuralReadingTests/Golden/unclip.json: RapidOCR's unclip on random rectangles.

Each case is a rectangle as RapidOCR's `get_mini_boxes` gives it (OpenCV's minAreaRect and
boxPoints of random integer points, float32 corners in its order), the unclip distance
(shapely's area x 1.6 / perimeter), pyclipper's round offset of it (JT_ROUND,
ET_CLOSEDPOLYGON, the points as pyclipper returns them) and `get_mini_boxes` of that outline
(the four float32 corners and the shorter side). Seeded, so a re-run writes the same file.

Run from the repository root:
    .build/venv/bin/python bench/neural/golden_offset.py [COUNT]
"""
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pyclipper
from shapely.geometry import Polygon

OUT = Path(__file__).resolve().parents[2] / "Tests/NeuralReadingTests/Golden/unclip.json"


def mini_box(contour):
    """RapidOCR's get_mini_boxes: corners sorted by x, then top left, top right, bottom right, bottom left."""
    rect = cv2.minAreaRect(contour)
    points = sorted(list(cv2.boxPoints(rect)), key=lambda x: x[0])
    i1, i4 = (0, 1) if points[1][1] > points[0][1] else (1, 0)
    i2, i3 = (2, 3) if points[3][1] > points[2][1] else (3, 2)
    return np.array([points[i1], points[i2], points[i3], points[i4]]), float(min(rect[1]))


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    rng = np.random.default_rng(27)
    cases = []
    while len(cases) < count:
        # A line-like cloud: a long thin region, sometimes tilted, at map-sized coordinates.
        length, thickness = rng.uniform(4, 300), rng.uniform(2, 40)
        angle = rng.choice([0.0, 0.0, rng.uniform(-0.3, 0.3), rng.uniform(-1.6, 1.6)])
        centre = rng.uniform(20, 900, size=2)
        local = rng.uniform(-0.5, 0.5, size=(24, 2)) * [length, thickness]
        rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        points = np.round(local @ rotation.T + centre).astype(np.int32).reshape(-1, 1, 2)
        box, side = mini_box(points)
        if side < 3:
            continue
        poly = Polygon(box)
        distance = poly.area * 1.6 / poly.length
        offset = pyclipper.PyclipperOffset()
        offset.AddPath(box, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        expanded = np.array(offset.Execute(distance)).reshape((-1, 1, 2))
        grown, grown_side = mini_box(expanded)
        cases.append({
            "box": [[float(v) for v in p] for p in box],
            "distance": distance,
            "offset": expanded.reshape(-1, 2).tolist(),
            "grown": [[float(v) for v in p] for p in grown],
            "grownSide": grown_side,
        })
    OUT.write_text(json.dumps({"cases": cases}, separators=(",", ":")) + "\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
