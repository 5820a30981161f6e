#!/usr/bin/python3
"""Renders benchmark pages: dense text in DejaVu fonts, optionally with a photo on the page.

    /usr/bin/python3 bench/make-page.py OUT.png [--width 2480] [--height 3508] [--seed 0]
                                        [--photo fixtures/faces/astronaut.png]

The default is an A4 page at 300 ppi in 11 pt type. Deterministic for a given seed; the file
carries its resolution and no timestamp.
"""
import argparse
import random

from PIL import Image, ImageDraw, ImageFont

WORDS = ("archive ledger parish register baptism census harbour merchant voyage cargo letter "
         "estate survey boundary river mill county record witness deed charter seal bishop "
         "council minutes treasurer account rent tenant harvest grain wool cloth market fair "
         "1642 1788 1851 1904 27 315 12 9").split()
FONTS = ["DejaVuSerif.ttf", "DejaVuSans.ttf", "DejaVuSansMono.ttf"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=2480)
    parser.add_argument("--height", type=int, default=3508)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--photo")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    width, height = args.width, args.height
    margin = width // 10
    size = max(18, round(46 * width / 2480))
    page = Image.new("RGB" if args.photo else "L", (width, height), "white")
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/" + FONTS[args.seed % len(FONTS)], size)
    top = margin
    if args.photo:
        photo = Image.open(args.photo).convert("RGB")
        side = width // 3
        page.paste(photo.resize((side, side)), (margin, margin))
        top = margin + side + size
    y = top
    while y + size * 1.4 < height - margin:
        line, x = [], margin
        while True:
            word = rng.choice(WORDS)
            advance = draw.textlength(word + " ", font=font)
            if x + advance > width - margin:
                break
            line.append(word)
            x += advance
        draw.text((margin, y), " ".join(line), font=font, fill="black")
        y += round(size * 1.45)
    page.save(args.out, dpi=(300, 300))


if __name__ == "__main__":
    main()
