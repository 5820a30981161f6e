#!/usr/bin/env bash
# Memory bounds: peak RSS while reading a 20000x20000 PNG (400 megapixels, 600 ppi, lines of
# text), which Gloss reduces by whole blocks as libpng reads its rows. Held whole it would take
# 400 MB as grey and 1.2 GB as RGB before any copy is made.
#   bench/memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gloss="$(swift build -c release --show-bin-path)/gloss"
/usr/bin/python3 - "$work/map.png" <<'PY'
import sys
from PIL import Image, ImageDraw, ImageFont
page = Image.new("L", (20000, 20000), 255)
draw = ImageDraw.Draw(page)
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 200)
for y in range(0, 20000, 1000):
    draw.text((500, y + 200), "Harbour map sheet %d" % y, font=font, fill=0)
page.save(sys.argv[1], dpi=(600, 600))
PY
echo "a 20000x20000 PNG ($(du -k "$work/map.png" | cut -f1) KB on disk), two cores"
for command in faces ocr; do
    /usr/bin/time -f "%e %M" -o "$work/t" "$gloss" "$command" "$work/map.png" --max-pixels 400000000 >"$work/out.json"
    read -r seconds kilobytes <"$work/t"
    words=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["words"]))' "$work/out.json")
    awk -v c="$command" -v s="$seconds" -v k="$kilobytes" -v w="$words" \
        'BEGIN { printf "gloss %-6s %6s s, peak RSS %5.0f MB, %s words\n", c, s, k / 1024, w }'
done
