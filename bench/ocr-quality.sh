#!/usr/bin/env bash
# OCR quality on real scans: bag-of-words F1, CER and time of `gloss ocr` next to the Tesseract
# CLI with default settings, per page, per group and overall (see bench/ocr-quality/README.md).
# Makes the pages first when $OCR_DATA (default .build/ocr-data) has none.
#   bench/ocr-quality.sh [score.py options]     e.g. --group ocrmypdf, --json out.json,
#                                               --variant none="--prepare none" --variant b@/other/gloss=
# Without --variant (and without $GLOSS_ARGS) it compares `--prepare none` with `--prepare auto`.
# GLOSS picks the binary (default: this checkout's release build, built here).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${OCR_DATA:-.build/ocr-data}
venv=${OCR_BENCH_VENV:-.build/ocr-venv}
if [ ! -f "$data/manifest.json" ]; then
    skip=()
    [ -d "${MIRRORS:-/work/.mirror}" ] || skip=(--skip-git)
    sh bench/ocr-quality/make.sh --out "$data" "${skip[@]}"
fi
[ -x "$venv/bin/python" ] || sh bench/ocr-quality/make.sh --help >/dev/null
if [ -z "${GLOSS:-}" ]; then
    swift build -c release --product gloss >/dev/null
    GLOSS="$(swift build -c release --show-bin-path)/gloss"
fi
defaults=()
if [ -z "${GLOSS_ARGS:-}" ] && [[ " $* " != *" --variant"* ]]; then
    defaults=(--variant "none=--prepare none" --variant "auto=--prepare auto")
fi
exec "$venv/bin/python" bench/ocr-quality/score.py --data "$data" --gloss "$GLOSS" "${defaults[@]}" "$@"
