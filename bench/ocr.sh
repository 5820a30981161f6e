#!/usr/bin/env bash
# OCR benchmark: `gloss ocr` next to the Tesseract CLI on the same dense A4 page (300 ppi),
# run side by side. Prints wall time, CPU time and peak memory of each, and the ratios.
#   bench/ocr.sh [RUNS]      (default 3 runs each; the median is reported)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gloss="$(swift build -c release --show-bin-path)/gloss"
page="$work/a4.png"
/usr/bin/python3 bench/make-page.py "$page"

# measure NAME COMMAND...: runs the command $runs times, records "wall user sys maxrss_kb".
measure() {
    local name=$1; shift
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
            cat "$work/stderr" >&2; exit 1; }
        cat "$work/time" >> "$work/$name.times"
    done
    sort -n "$work/$name.times" | awk -v n="$name" -v r="$runs" '
        NR == int((r + 1) / 2) { printf "%-34s %7.2f s wall %7.2f s user %6.2f s sys %7.1f MB peak\n", n, $1, $2, $3, $4 / 1024 }'
    sort -n "$work/$name.times" | awk -v r="$runs" 'NR == int((r + 1) / 2) { print $1 }' > "$work/$name.median"
}

echo "A4 page, 2480x3508 at 300 ppi, $(nproc) cores, median of $runs runs"
measure "gloss ocr" "$gloss" ocr "$page"
measure "tesseract (default threads)" tesseract "$page" -
measure "tesseract (OMP_THREAD_LIMIT=1)" env OMP_THREAD_LIMIT=1 tesseract "$page" -
g=$(cat "$work/gloss ocr.median")
for ref in "tesseract (default threads)" "tesseract (OMP_THREAD_LIMIT=1)"; do
    awk -v g="$g" -v t="$(cat "$work/$ref.median")" -v n="$ref" 'BEGIN { printf "ratio gloss / %-30s %.2f\n", n, g / t }'
done
