#!/usr/bin/python3
"""Renders a dense A4 page at 300 ppi (2480x3508, 11 pt DejaVu Serif) for the OCR benchmark.

Usage: /usr/bin/python3 bench/make-a4-page.py OUT.png
Deterministic: the text is a fixed sequence of words, the file has no timestamp.
"""
import sys

from PIL import Image, ImageDraw, ImageFont

WORDS = ("archive ledger parish register baptism census harbour merchant voyage cargo letter "
         "estate survey boundary river mill county record witness deed charter seal bishop "
         "council minutes treasurer account rent tenant harvest grain wool cloth market fair "
         "1642 1788 1851 1904 27 315 12 9").split()


def main(path):
    width, height, margin = 2480, 3508, 236
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 46)
    y, index = margin, 0
    while y + 60 < height - margin:
        x = margin
        line = []
        while True:
            word = WORDS[(index * 7 + len(line) * 3) % len(WORDS)]
            advance = draw.textlength(word + " ", font=font)
            if x + advance > width - margin:
                break
            line.append(word)
            x += advance
        draw.text((margin, y), " ".join(line), font=font, fill=0)
        index += 1
        y += 66
    page.save(path, dpi=(300, 300))


if __name__ == "__main__":
    main(sys.argv[1])
