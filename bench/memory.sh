#!/usr/bin/env bash
# Memory bounds: peak RSS while reading a 20000x20000 PNG (400 megapixels, 600 ppi, lines of
# text), which Gloss reduces by whole blocks as libpng reads its rows. Held whole it would take
# 400 MB as grey and 1.2 GB as RGB before any copy is made. Then whole pages through
# `gloss annotate` (hash, decode, text, faces, HTML), one at a time: a 1 GiB sparse file with a
# PNG header of 1000x1000 (refused from its size and header, before it is read), and a
# 12000x12000 page (144 megapixels, under the default limit) as lossless and lossy WebP, G4 and
# deflate TIFF and GIF, and a lossless WebP of 6000x6000 (libwebp holds lossless images whole); then the
# largest pages held whole, the worst case per page. Last, what a cluster task needs (the
# requests in docs/clusters.md): for --jobs 1, 2 and 4, the memory of a batch of ordinary A4
# pages held steady (the median of /proc/PID/status VmRSS sampled every 0.1 s while pages are
# read), its peak (GNU time %M), and the peak of as many of the largest pages held whole
# read at once, one a worker.
#   bench/memory.sh            everything (about 10 minutes on two cores)
#   bench/memory.sh workers    only the last part
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gloss=${GLOSS:-"$(swift build -c release --show-bin-path)/gloss"}

# Runs gloss with the arguments given, sampling its resident memory; prints
# "seconds peak-MB steady-MB": GNU time's peak, and the median of the samples taken after the
# first tenth of the run (the engines loaded) and before the last tenth (the records written).
sampled() {
    /usr/bin/time -f "%e %M" -o "$work/t" "$gloss" "$@" >/dev/null 2>"$work/err" &
    local timer=$! pid="" samples=()
    while [ -z "$pid" ] && kill -0 "$timer" 2>/dev/null; do pid=$(pgrep -P "$timer" || true); sleep 0.01; done
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do
        samples+=("$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)")
        sleep 0.1
    done
    wait "$timer" || { cat "$work/err"; return 1; }
    read -r seconds kilobytes < <(tail -n 1 "$work/t")
    local count=${#samples[@]} steady
    steady=$(printf '%s\n' "${samples[@]}" | sed -n "$((count / 10 + 1)),$((count - count / 10))p" | grep . | sort -n \
        | awk '{ v[n++] = $1 } END { print n ? v[int((n - 1) / 2)] : 0 }')
    awk -v s="$seconds" -v k="$kilobytes" -v m="$steady" 'BEGIN { printf "%s %.0f %.0f\n", s, k / 1024, m / 1024 }'
}

workers() {
    /usr/bin/python3 - "$work" <<'PY'
import os, sys
from PIL import Image, ImageDraw, ImageFont
work = sys.argv[1]
os.makedirs(work + "/a4", exist_ok=True)
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", 34)
for number in range(16):
    page = Image.new("L", (1654, 2339), 255)
    draw = ImageDraw.Draw(page)
    for line in range(40):
        draw.text((150, 150 + line * 52), "Register %d line %d: the harbour ledger of cargo and tolls" % (number, line), font=font, fill=0)
    page.save(work + "/a4/page-%02d.png" % number, dpi=(200, 200))
# The largest page held whole (just under the 100 megapixels above which a page is reduced as
# it is read), in colour at 600 ppi as archives scan maps and plates, four copies: one a worker
# at --jobs 4.
big = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 150)
page = Image.new("RGB", (9900, 9900), (250, 245, 235))
draw = ImageDraw.Draw(page)
for y in range(0, 9900, 600):
    draw.text((400, y + 150), "Harbour map sheet %d" % y, font=big, fill=(20, 30, 120))
os.makedirs(work + "/large", exist_ok=True)
page.save(work + "/large/sheet-0.png", dpi=(600, 600))
for copy in range(1, 4):
    os.link(work + "/large/sheet-0.png", work + "/large/sheet-%d.png" % copy)
PY
    echo "a cluster task: 16 A4 pages (1654x2339, 200 ppi, 40 lines each), then N colour pages of 9900x9900 read at once"
    echo "  jobs  A4: seconds  peak  steady (MB)   largest pages: seconds  peak (MB)"
    local jobs
    for jobs in 1 2 4; do
        rm -rf "$work/out"
        read -r seconds peak steady < <(sampled annotate "$work/a4" -o "$work/out" --jobs "$jobs" --quiet)
        mkdir -p "$work/one"; rm -rf "$work/one"/* "$work/out"
        for copy in $(seq 0 $((jobs - 1))); do ln "$work/large/sheet-$copy.png" "$work/one/"; done
        read -r large_seconds large_peak _ < <(sampled annotate "$work/one" -o "$work/out" --jobs "$jobs" --quiet)
        printf '  %4s  %11s  %4s  %6s          %14s  %9s\n' "$jobs" "$seconds" "$peak" "$steady" "$large_seconds" "$large_peak"
    done
}

if [ "${1:-}" = workers ]; then
    workers
    exit 0
fi
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

/usr/bin/python3 - "$work" <<'PY'
import struct, sys, zlib
from PIL import Image, ImageDraw, ImageFont
work = sys.argv[1]
Image.MAX_IMAGE_PIXELS = None  # these pages are large on purpose
chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
with open(work + "/sparse.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1000, 1000, 8, 0, 0, 0, 0)))
    f.truncate(1 << 30)
page = Image.new("L", (12000, 12000), 255)
draw = ImageDraw.Draw(page)
font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 150)
for y in range(0, 12000, 600):
    draw.text((400, y + 150), "Harbour map sheet %d" % y, font=font, fill=0)
page.save(work + "/lossless.webp", lossless=True, method=0)
page.save(work + "/lossy.webp", quality=80, method=0)
page.convert("1").save(work + "/g4.tif", compression="group4")
page.save(work + "/deflate.tif", compression="tiff_adobe_deflate")
page.convert("P", palette=Image.ADAPTIVE, colors=16).save(work + "/page.gif")
page.resize((6000, 6000)).save(work + "/lossless-6000.webp", lossless=True, method=0)
# Pages held whole, the worst case per page: just under the 100 megapixels above which a page
# is reduced as it is read, grey with no resolution stated (so text is read at full size) and
# colour at 600 ppi; a colour JPEG of 144 megapixels, decoded at the DCT scale that fits (6/8).
page.crop((0, 0, 9900, 9900)).save(work + "/whole.png")
for side, name in ((9900, "colour.png"), (12000, "colour.jpg")):
    colour = Image.new("RGB", (side, side), (250, 245, 235))
    draw = ImageDraw.Draw(colour)
    for y in range(0, side, 600):
        draw.text((400, y + 150), "Harbour map sheet %d" % y, font=font, fill=(20, 30, 120))
    colour.save(work + "/" + name, dpi=(600, 600), quality=85)
PY
echo "gloss annotate, one page at a time (--jobs 1): seconds, peak RSS, outcome"
for name in sparse.png lossless.webp lossy.webp lossless-6000.webp g4.tif deflate.tif page.gif whole.png colour.png colour.jpg; do
    rm -rf "$work/out"
    /usr/bin/time -f "%e %M" -o "$work/t" "$gloss" annotate "$work/$name" -o "$work/out" --jobs 1 --quiet 2>"$work/err" || true
    read -r seconds kilobytes < <(tail -n 1 "$work/t")  # after "Command exited with non-zero status 1"
    outcome=$(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["pages"][0]; print(p["status"], (p.get("error") or "").split(": ", 1)[-1][:90])' "$work/out/gloss.json")
    awk -v n="$name ($(du -k --apparent-size "$work/$name" | cut -f1) KB)" -v s="$seconds" -v k="$kilobytes" -v o="$outcome" \
        'BEGIN { printf "  %-28s %6s s, peak RSS %5.0f MB, %s\n", n, s, k / 1024, o }'
done

workers
