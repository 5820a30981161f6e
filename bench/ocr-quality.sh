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
. bench/ocr-quality/prepare.sh
defaults=()
if [ -z "${GLOSS_ARGS:-}" ] && [[ " $* " != *" --variant"* ]]; then
    defaults=(--variant "none=--prepare none" --variant "auto=--prepare auto")
fi
exec "$venv/bin/python" bench/ocr-quality/score.py --data "$data" --gloss "$GLOSS" "${defaults[@]}" "$@"
