#!/bin/sh
# The letter size Gloss measures (preparation.xHeight of `gloss ocr`, page pixels) of every page
# detector_size.py uses, as NAME<TAB>XHEIGHT lines. Usage: x_heights.sh GLOSS OUT PAGE...
set -eu
gloss=$1 out=$2
shift 2
: > "$out"
for page in "$@"; do
    x=$(OMP_THREAD_LIMIT=1 "$gloss" ocr "$page" 2>/dev/null | python3 -c 'import json,sys; print((json.load(sys.stdin).get("preparation") or {}).get("xHeight"))' || echo None)
    printf '%s\t%s\n' "$(basename "$page")" "$x" >> "$out"
done
