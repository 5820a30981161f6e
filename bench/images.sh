#!/usr/bin/env bash
# The report's pictures: bytes and encoding time of the display copies before (8-bit PNG) and
# after (by kind, plus thumbnails), on the fixtures and on the annotated real photos and
# documents of `make face-data` when present (FACE_DATA, default .build/face-data).
#   bench/images.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product ImageBench >/dev/null
bench="$(swift build -c release --show-bin-path)/ImageBench"
data=${FACE_DATA:-.build/face-data}
echo "fixtures:"
"$bench" fixtures/text/*.png fixtures/text/*.jpg fixtures/scans/* fixtures/faces/*.png fixtures/formats/page.pgm
if [ -d "$data/photos" ]; then
    echo "real pages ($data: photos and documents):"
    find "$data/photos" "$data/documents" -type f \( -iname '*.png' -o -iname '*.jp*g' \) -print0 | sort -z | xargs -0 "$bench"
else
    echo "real pages: skipped ($data is missing; make face-data builds it)"
fi
