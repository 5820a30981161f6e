#!/usr/bin/env bash
# PDF benchmark: a scanned PDF made searchable by Gloss (`annotate --format pdf --no-faces
# --jobs 2`) and by OCRmyPDF (`--output-type pdf --jobs 2`), on the same 10-page PDF (pages of
# bench/make-page.py at 1654x2339, A4 at 200 ppi, embedded by Pillow as JPEG). Prints pages per
# second and output size for each; the times are the best of ROUNDS runs (default 3).
#   [ROUNDS=3] bench/pdf.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ocrmypdf >/dev/null || { echo "bench/pdf.sh needs ocrmypdf (make setup)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gloss="$(swift build -c release --show-bin-path)/gloss"
pages=10
for seed in $(seq 0 $((pages - 1))); do
    /usr/bin/python3 bench/make-page.py "$work/page-$(printf %02d "$seed").png" --width 1654 --height 2339 --seed "$seed"
done
/usr/bin/python3 - "$work" "$pages" <<'PY'
import sys
from PIL import Image
work, count = sys.argv[1], int(sys.argv[2])
images = [Image.open("%s/page-%02d.png" % (work, n)).convert("L") for n in range(count)]
images[0].save(work + "/scans.pdf", save_all=True, append_images=images[1:], resolution=200.0)
PY
echo "$pages pages of 1654x2339 (200 ppi) in one PDF of $(stat -c %s "$work/scans.pdf") bytes, $(nproc) cores"

seconds() { /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1 || true; cat "$work/t"; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
g=() o=()
for round in $(seq 1 "${ROUNDS:-3}"); do
    g+=("$(seconds "$gloss" annotate "$work/scans.pdf" -o "$work/out" --format pdf --no-faces --jobs 2 --force --quiet)")
    o+=("$(seconds ocrmypdf --output-type pdf --jobs 2 -q "$work/scans.pdf" "$work/ocrmypdf.pdf")")
done
gs=$(best "${g[@]}") os=$(best "${o[@]}")
gpdf=$(ls "$work"/out/pages/*.pdf)
row() { printf '%-44s %7s s %7s pages/s %10s bytes\n' "$1" "$2" "$(awk -v n="$pages" -v s="$2" 'BEGIN { printf "%.2f", n / s }')" "$3"; }
row "gloss annotate --format pdf --jobs 2" "$gs" "$(stat -c %s "$gpdf")"
row "ocrmypdf --output-type pdf --jobs 2" "$os" "$(stat -c %s "$work/ocrmypdf.pdf")"
printf 'words pdftotext reads back: gloss %s, ocrmypdf %s\n' \
    "$(pdftotext "$gpdf" - | wc -w)" "$(pdftotext "$work/ocrmypdf.pdf" - | wc -w)"
