#!/usr/bin/env python3
"""Records Tests/NeuralReadingTests/Golden/noise-line.crop: RapidOCR's `get_rotate_crop_image`
(cv2.warpPerspective, INTER_CUBIC, edges replicated) of a tilted quadrilateral on a page of
random grey noise, the hardest case for the interpolation, and partly off the page's edge.

  .build/venv/bin/python bench/neural/golden_crop.py

The file is zlib-compressed: the page's width and height (u32 little-endian), its grey bytes,
the quadrilateral's four corners clockwise from the top left (x, y as f32 little-endian), the
crop's width and height (u32) and its grey bytes.
"""
import os, struct, sys, zlib

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "Tests", "NeuralReadingTests", "Golden", "noise-line.crop")


def main():
    from rapidocr.utils.process_img import get_rotate_crop_image
    page = np.random.default_rng(27).integers(0, 256, (64, 96)).astype(np.uint8)
    # Tilted, fractional corners (as the detector's boxes, once carried to a page, are); the
    # bottom left corner lies beyond the page's left edge.
    quad = np.array([[6.4, 10.7], [88.3, 4.2], [90.6, 33.9], [-1.5, 41.3]], np.float32)
    crop = get_rotate_crop_image(page, quad.copy())
    assert crop.ndim == 2, crop.shape
    body = struct.pack("<II", page.shape[1], page.shape[0]) + page.tobytes() + quad.astype("<f4").tobytes() \
        + struct.pack("<II", crop.shape[1], crop.shape[0]) + crop.tobytes()
    with open(OUT, "wb") as f:
        f.write(zlib.compress(body, 9))
    print(f"{OUT}: page {page.shape[1]}x{page.shape[0]}, crop {crop.shape[1]}x{crop.shape[0]}", file=sys.stderr)


if __name__ == "__main__":
    main()
