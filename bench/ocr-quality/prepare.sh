# Sourced by bench/ocr-quality.sh and bench/neural.sh from the repository's root (bash): sets
# $data (the pages, made by make.sh when missing or made before the tune/measure halves), $venv
# (the scorer's Python, with Pillow and rapidfuzz) and $GLOSS (default: this checkout's release
# build, built here).
data=${OCR_DATA:-.build/ocr-data}
venv=${OCR_BENCH_VENV:-.build/ocr-venv}
if [ ! -f "$data/manifest.json" ] || ! grep -q '"half"' "$data/manifest.json"; then
    skip=()
    [ -d "${MIRRORS:-/work/.mirror}" ] || skip=(--skip-git)
    sh bench/ocr-quality/make.sh --out "$data" "${skip[@]}"
fi
[ -x "$venv/bin/python" ] || sh bench/ocr-quality/make.sh --help >/dev/null
if [ -z "${GLOSS:-}" ]; then
    swift build -c release --product gloss >/dev/null
    GLOSS="$(swift build -c release --show-bin-path)/gloss"
fi
