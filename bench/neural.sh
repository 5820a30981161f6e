#!/usr/bin/env bash
# PP-OCRv6 in Gloss against RapidOCR (ONNX Runtime, one thread) and Tesseract on the real pages
# of bench/ocr-quality: F1, CER, seconds per page split into detection and recognition, per group
# and per half (tune / measure), and the neural engine's agreement with RapidOCR line by line.
# See bench/neural/README.md.
#   bench/neural.sh [bench.py options]   e.g. --group receipts, --page aldi, --half measure, --json out.json
# GLOSS picks the binary (default: this checkout's release build, built here); PPOCR_PYTHON the
# Python with rapidocr (default .build/venv/bin/python, made by make setup).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/ocr-quality/prepare.sh
exec "$venv/bin/python" bench/neural/bench.py --data "$data" --gloss "$GLOSS" "$@"
