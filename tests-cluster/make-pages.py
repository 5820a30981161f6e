#!/usr/bin/env python3
"""Writes the generated part of the cluster test's collection: COUNT greyscale pages of
printed text (DejaVu Serif, 150 ppi, about A6), each with different words, into FOLDER.
Deterministic: no randomness, no timestamps; the same bytes on every run.

    tests-cluster/make-pages.py FOLDER [COUNT]
"""
import os
import sys

from PIL import Image, ImageDraw, ImageFont

WORDS = ("harbour ledger cargo vessel tide quay warden lantern anchor timber merchant "
         "parish record survey chart beacon mill granary ferry toll bridge canal lock "
         "weaver cooper smith baker mason carter miller tanner").split()


def main():
    folder = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    os.makedirs(folder, exist_ok=True)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 24)
    title = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf", 34)
    for number in range(count):
        page = Image.new("L", (620, 880), 255)
        draw = ImageDraw.Draw(page)
        draw.text((70, 70), "Register of the port, folio %d" % (number + 1), font=title, fill=0)
        for line in range(14):
            words = [WORDS[(number * 7 + line * 3 + k * 5) % len(WORDS)] for k in range(5)]
            draw.text((70, 150 + line * 46), "%d. %s" % (line + 1, " ".join(words)), font=font, fill=0)
        page.save(os.path.join(folder, "folio-%02d.png" % (number + 1)), dpi=(150, 150))


if __name__ == "__main__":
    main()
