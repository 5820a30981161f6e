#!/usr/bin/python3
"""How the display copies' JPEG quality was chosen: for each picture given (display copies, or
any photos), size and block SSIM of JPEG at several qualities against the 8-bit PNG of the same
pixels. Needs Debian's python3-pil and python3-numpy.

    /usr/bin/python3 bench/images/jpeg-quality.py PICTURE...
"""

import io
import sys

import numpy as np
from PIL import Image

QUALITIES = (60, 70, 75, 80, 85, 90, 95)


def block_ssim(a, b):
    """Mean SSIM over 8x8 blocks of two grey images (luma is where JPEG's artefacts show)."""
    a, b = a.astype(float), b.astype(float)
    h, w = a.shape[0] - a.shape[0] % 8, a.shape[1] - a.shape[1] % 8
    blocks = lambda x: x[:h, :w].reshape(h // 8, 8, w // 8, 8).transpose(0, 2, 1, 3).reshape(-1, 64)
    x, y = blocks(a), blocks(b)
    mx, my, vx, vy = x.mean(1), y.mean(1), x.var(1), y.var(1)
    cov = ((x - mx[:, None]) * (y - my[:, None])).mean(1)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    return (((2 * mx * my + c1) * (2 * cov + c2)) / ((mx ** 2 + my ** 2 + c1) * (vx + vy + c2))).mean()


def main(paths):
    png_total = 0
    totals = {quality: [0, 0.0] for quality in QUALITIES}
    for path in paths:
        image = Image.open(path).convert("RGB")
        luma = np.asarray(image.convert("L"))
        png = io.BytesIO()
        image.save(png, "PNG", compress_level=1)
        png_total += len(png.getvalue())
        for quality in QUALITIES:
            jpeg = io.BytesIO()
            image.save(jpeg, "JPEG", quality=quality)
            totals[quality][0] += len(jpeg.getvalue())
            decoded = np.asarray(Image.open(io.BytesIO(jpeg.getvalue())).convert("L"))
            totals[quality][1] += block_ssim(luma, decoded)
    for quality, (size, ssim) in totals.items():
        print("quality %d: %.1f MB, %.1f%% of the PNG, mean block SSIM %.4f"
              % (quality, size / 1e6, 100 * size / png_total, ssim / len(paths)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
