#!/bin/sh
# Re-create the OCR-quality pages, their ground truth and manifest.json in .build/ocr-data
# (see README.md). Needs git mirrors of the GitHub sources under $MIRRORS (default
# /work/.mirror/OWNER+NAME/repo, as the workplace's fetch tool makes them); without them only
# the OCRmyPDF pages can be made, from PyPI (--skip-git). Needs pdftoppm (poppler-utils).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${OCR_BENCH_VENV:-$HERE/../../.build/ocr-venv}
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import PIL, rapidfuzz' 2>/dev/null || "$VENV/bin/pip" install -q "pillow>=10" "rapidfuzz>=3"
exec "$VENV/bin/python" "$HERE/make.py" "$@"
