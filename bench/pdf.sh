#!/usr/bin/env bash
# PDF benchmark: searchable PDFs by Gloss (`annotate --format pdf,txt --no-faces --jobs 2`; a PDF
# input gets its text layer grafted on, an image input's PDF is drawn) and by OCRmyPDF 14
# (Debian's, `--jobs 2`, one file at a time), on the same inputs, each tool both ways:
#   gloss       Gloss's default, PDF/A-2b (the graft keeps every input stream)
#   gloss-plain `--pdf-standard none`
#   gloss-fast  `--text fast`: Tesseract alone, as OCRmyPDF reads (Gloss's default, `accurate`,
#               also runs the neural reader where the reading plan expects it to gain)
#   ocrmypdf    `--output-type pdf --optimize 0`: like gloss-plain, no PDF/A and the input's
#               images kept as they are
#   ocrmypdf-a  OCRmyPDF's default, `--output-type pdfa` (Ghostscript writes the file again,
#               then images are optimised losslessly, -O1), to compare with Gloss's default
# The sets: a 10-page PDF of bench/make-page.py pages (1654x2339, A4 at 200 ppi, Pillow's JPEGs);
# OCRmyPDF's own test resources in fixtures/ocrmypdf (a JPEG scan, a JBIG2 page and a CCITT page,
# the last two of linn.png, whose typed truth is bench/ocr-quality/truth/ocrmypdf-linn.gt.txt);
# and image inputs: the 10 pages as PNG and as JPEG files (OCRmyPDF given `--image-dpi 200`).
# Prints, per set and tool: pages a second (best of ROUNDS runs, default 2), output bytes against
# input bytes and the words pdftotext finds in the last run's outputs, and the bag-of-words F1
# of `pdftotext` against the truth where there is one (bench/ocr-quality/score.py's tokens and F1).
#   [ROUNDS=2] [GLOSS=path/to/gloss] [SETS="scans jpeg"] [TOOLS="gloss ocrmypdf"] bench/pdf.sh
#   (GLOSS: default this checkout's release build, built here; SETS and TOOLS: default all)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ocrmypdf >/dev/null || { echo "bench/pdf.sh needs ocrmypdf (make setup)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "${GLOSS:-}" ]; then
    swift build -c release --product gloss >/dev/null && swift build -c release --product gloss-render >/dev/null
fi
gloss=${GLOSS:-"$(swift build -c release --show-bin-path)/gloss"}
rounds=${ROUNDS:-2}
mkdir -p "$work/scans" "$work/ocrmypdf" "$work/png" "$work/jpeg"
for seed in $(seq 0 9); do
    /usr/bin/python3 bench/make-page.py "$work/png/page-$seed.png" --width 1654 --height 2339 --seed "$seed"
done
/usr/bin/python3 - "$work" <<'PY'
import sys
from PIL import Image
work = sys.argv[1]
images = [Image.open("%s/png/page-%d.png" % (work, n)).convert("L") for n in range(10)]
images[0].save(work + "/scans/scans.pdf", save_all=True, append_images=images[1:], resolution=200.0)
for n, image in enumerate(images):
    image.save("%s/jpeg/page-%d.jpg" % (work, n), quality=85, dpi=(200, 200))
PY
cp fixtures/ocrmypdf/c02-22.pdf fixtures/ocrmypdf/jbig2.pdf fixtures/ocrmypdf/ccitt.pdf "$work/ocrmypdf/"
echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); best of $rounds runs"

seconds() { local start; start=$(date +%s.%N); "$@" >/dev/null 2>"$work/err" || { echo "failed: $* $(tail -3 "$work/err")" >&2; }
            awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
best() { printf '%s\n' "$@" | sort -n | head -1; }
bytes() { cat "$@" | wc -c; }
pagesof() { local n=0 f; for f in "$@"; do n=$((n + $(pdfinfo "$f" | awk '/^Pages:/ { print $2 }'))); done; echo "$n"; }
# The words pdftotext finds in PDFs: an output without its text (OCRmyPDF writes the page
# without OCR when Tesseract passes its --tesseract-timeout, 180 s) is smaller, not better.
words() { local f n=0; for f in "$@"; do n=$((n + $(pdftotext "$f" - 2>/dev/null | wc -w))); done; echo "$n"; }
row() {  # name seconds pages input-bytes output-bytes words
    printf '  %-11s %7s s %6s pages/s %10s bytes out of %10s in (%s), %6s words\n' "$1" "$2" \
        "$(awk -v n="$3" -v s="$2" 'BEGIN { printf "%.2f", n / s }')" "$5" "$4" \
        "$(awk -v o="$5" -v i="$4" 'BEGIN { printf "%+.1f%%", 100 * (o - i) / i }')" "$6"
}
# run TOOL SET OUT: one tool's searchable PDFs of every input of the set, in OUT/*.pdf.
run() {
    local tool=$1 set=$2 out=$3 input
    rm -rf "$out" "$out.batch"
    mkdir -p "$out"
    local dpi=()
    case "$set" in png|jpeg) dpi=(--image-dpi 200) ;; esac
    case "$tool" in
    gloss|gloss-plain|gloss-fast)
        local standard=()
        [ "$tool" = gloss-plain ] && standard=(--pdf-standard none)
        [ "$tool" = gloss-fast ] && standard=(--text fast)
        "$gloss" annotate "$work/$set"/* -o "$out.batch" --format pdf,txt --no-faces --jobs 2 --quiet "${standard[@]}"
        cp "$out.batch/documents/"*.pdf "$out/" ;;
    ocrmypdf|ocrmypdf-a)
        local options=(--output-type pdf --optimize 0)
        [ "$tool" = ocrmypdf-a ] && options=()
        for input in "$work/$set"/*; do
            name=$(basename "$input"); name=${name%.pdf}
            ocrmypdf "${options[@]}" --jobs 2 -q "${dpi[@]}" "$input" "$out/$name.pdf"
        done ;;
    esac
}
for set in ${SETS:-scans ocrmypdf png jpeg}; do
    inputs=("$work/$set"/*)
    case "$set" in scans|ocrmypdf) pages=$(pagesof "${inputs[@]}") ;; *) pages=${#inputs[@]} ;; esac
    echo "$set: ${#inputs[@]} file(s), $pages page(s), $(bytes "${inputs[@]}") bytes"
    for tool in ${TOOLS:-gloss gloss-plain gloss-fast ocrmypdf ocrmypdf-a}; do
        times=()
        for round in $(seq 1 "$rounds"); do times+=("$(seconds run "$tool" "$set" "$work/$tool-$set")"); done
        row "$tool" "$(best "${times[@]}")" "$pages" "$(bytes "${inputs[@]}")" "$(bytes "$work/$tool-$set"/*.pdf)" \
            "$(words "$work/$tool-$set"/*.pdf)"
    done
    for input in "${inputs[@]}"; do
        name=$(basename "$input" .pdf)
        case "$name" in jbig2|ccitt) truth=bench/ocr-quality/truth/ocrmypdf-linn.gt.txt ;; *) truth= ;; esac
        [ -n "$truth" ] && [ -z "${TOOLS:-}" ] || continue
        /usr/bin/python3 - "$truth" "$name" "$work/gloss-$set/$name.pdf" "$work/gloss-fast-$set/$name.pdf" "$work/ocrmypdf-$set/$name.pdf" "$work/ocrmypdf-a-$set/$name.pdf" <<'PY'
import subprocess, sys
sys.path.insert(0, "bench/ocr-quality")
from score import tokens, bag_f1
truth = tokens(open(sys.argv[1], encoding="utf-8").read())
scores = []
for pdf in sys.argv[3:]:
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True).stdout
    scores.append("%.3f" % bag_f1(truth, tokens(text))[2])
print("  F1 of %s against its truth: gloss %s, gloss-fast %s, ocrmypdf %s, ocrmypdf-a %s" % (sys.argv[2], *scores))
PY
    done
done
