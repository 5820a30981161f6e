#!/usr/bin/env bash
# PDF benchmark: PDFs made searchable by Gloss (`annotate --format pdf,txt --no-faces --jobs 2`,
# which grafts its text layer onto each input) and by OCRmyPDF (Debian's, `--output-type pdf
# --jobs 2`), on the same PDFs: a 10-page PDF of bench/make-page.py pages (1654x2339, A4 at
# 200 ppi, Pillow's JPEGs) and OCRmyPDF's own test resources in fixtures/ocrmypdf (a JPEG
# scan, a JBIG2 page and a CCITT page, the last two of linn.png, whose typed truth is
# bench/ocr-quality/truth/ocrmypdf-linn.gt.txt). Prints, per set: pages a second (best of ROUNDS
# runs, default 3), output bytes against input bytes, and the bag-of-words F1 of `pdftotext`
# against the truth where there is one (bench/ocr-quality/score.py's tokens and F1).
#   [ROUNDS=3] [GLOSS=path/to/gloss] bench/pdf.sh   (GLOSS: default this checkout's release build, built here)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ocrmypdf >/dev/null || { echo "bench/pdf.sh needs ocrmypdf (make setup)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${GLOSS:-}" ]; then
    swift build -c release --product gloss >/dev/null && swift build -c release --product gloss-render >/dev/null
fi
gloss=${GLOSS:-"$(swift build -c release --show-bin-path)/gloss"}
mkdir -p "$work/scans" "$work/ocrmypdf"
for seed in $(seq 0 9); do
    /usr/bin/python3 bench/make-page.py "$work/page-$seed.png" --width 1654 --height 2339 --seed "$seed"
done
/usr/bin/python3 - "$work" <<'PY'
import sys
from PIL import Image
work = sys.argv[1]
images = [Image.open("%s/page-%d.png" % (work, n)).convert("L") for n in range(10)]
images[0].save(work + "/scans/scans.pdf", save_all=True, append_images=images[1:], resolution=200.0)
PY
cp fixtures/ocrmypdf/c02-22.pdf fixtures/ocrmypdf/jbig2.pdf fixtures/ocrmypdf/ccitt.pdf "$work/ocrmypdf/"
echo "$(nproc) cores; best of ${ROUNDS:-3} runs"

seconds() { /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1 || true; cat "$work/t"; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
bytes() { cat "$@" | wc -c; }
pagesof() { local n=0 f; for f in "$@"; do n=$((n + $(pdfinfo "$f" | awk '/^Pages:/ { print $2 }'))); done; echo "$n"; }
row() {  # name seconds pages input-bytes output-bytes
    printf '  %-8s %7s s %6s pages/s %10s bytes out of %10s in (%s)\n' "$1" "$2" \
        "$(awk -v n="$3" -v s="$2" 'BEGIN { printf "%.2f", n / s }')" "$5" "$4" \
        "$(awk -v o="$5" -v i="$4" 'BEGIN { printf "%+.1f%%", 100 * (o - i) / i }')"
}
for set in scans ocrmypdf; do
    inputs=("$work/$set"/*.pdf)
    g=() o=()
    for round in $(seq 1 "${ROUNDS:-3}"); do
        rm -rf "$work/out-$set"
        g+=("$(seconds "$gloss" annotate "${inputs[@]}" -o "$work/out-$set" --format pdf,txt --no-faces --jobs 2 --quiet)")
        mkdir -p "$work/ocr-$set"
        start=$(date +%s.%N)
        for input in "${inputs[@]}"; do
            ocrmypdf --output-type pdf --jobs 2 -q "$input" "$work/ocr-$set/$(basename "$input")" || true
        done
        o+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')")
    done
    pages=$(pagesof "${inputs[@]}")
    echo "$set: ${#inputs[@]} file(s), $pages page(s)"
    row gloss "$(best "${g[@]}")" "$pages" "$(bytes "${inputs[@]}")" "$(bytes "$work/out-$set/documents"/*.pdf)"
    row ocrmypdf "$(best "${o[@]}")" "$pages" "$(bytes "${inputs[@]}")" "$(bytes "$work/ocr-$set"/*.pdf)"
    for input in "${inputs[@]}"; do
        name=$(basename "$input" .pdf)
        case "$name" in jbig2|ccitt) truth=bench/ocr-quality/truth/ocrmypdf-linn.gt.txt ;; *) truth= ;; esac
        [ -n "$truth" ] || continue
        /usr/bin/python3 - "$truth" "$work/out-$set/documents/$name.pdf" "$work/ocr-$set/$name.pdf" "$name" <<'PY'
import subprocess, sys
sys.path.insert(0, "bench/ocr-quality")
from score import tokens, bag_f1
truth = tokens(open(sys.argv[1], encoding="utf-8").read())
scores = []
for pdf in sys.argv[2:4]:
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True).stdout
    scores.append("%.3f" % bag_f1(truth, tokens(text))[2])
print("  F1 of %s against its truth: gloss %s, ocrmypdf %s" % (sys.argv[4], scores[0], scores[1]))
PY
    done
done
