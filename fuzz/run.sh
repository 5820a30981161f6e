#!/bin/bash
# Builds Gloss's libFuzzer targets and runs each for a bounded time.
#
#   fuzz/run.sh                      # every target, 60 s each
#   FUZZ_SECONDS=600 fuzz/run.sh     # longer
#   fuzz/run.sh cascade exif         # some targets only
#   fuzz/run.sh image -- -jobs=2     # extra libFuzzer flags after --
#   FUZZ_BUILD_ONLY=1 fuzz/run.sh    # build, do not run
#
# Targets: cascade (Cascade(xml:source:)), exif (ExifReader.orientation), image (ImageFile and
# decodePage). Each must only ever see thrown typed errors: a trap, ASan report, hang (timeout)
# or OOM is a finding. Findings land in fuzz/crashes/<target>/; new coverage in
# fuzz/corpus/<target>/ (both gitignored); the committed seeds are fuzz/seeds/<target>/.
# The exit status is 1 if any target found something.
#
# Build: the modules Geometry, Contract, Imaging, NeuralNetwork and FaceDetection are compiled straight from Sources/
# with swiftc, instrumented for libFuzzer (coverage) and AddressSanitizer, into FUZZ_BUILD
# (default /tmp/fuzz-build, never .build); the drivers in fuzz/targets/ link them with
# libFuzzer's main. Rebuilt only when something changed.
set -euo pipefail

FUZZ_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$FUZZ_DIR")
# The Gloss tree whose Sources/ are built (default: this checkout; a snapshot works too).
SRC=${GLOSS_SOURCES:-$ROOT}
BUILD=${FUZZ_BUILD:-/tmp/fuzz-build}
SECONDS_EACH=${FUZZ_SECONDS:-60}
SWIFTC=${SWIFTC:-swiftc}

targets=()
extra=()
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
    targets+=("$1"); shift
done
[ ${#targets[@]} -gt 0 ] || targets=(cascade exif image model)

MODULES=(Geometry:GlossGeometry Contract:GlossContract Imaging:GlossImaging NeuralNetwork:GlossNeuralNetwork FaceDetection:GlossFaceDetection)

# The C modules (Sources/C*/module.modulemap) these modules import, and what they link.
# -package-name: the modules share `package` declarations, as SwiftPM builds them.
FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name Gloss -I "$BUILD")
LIBS=()
for c in $(for m in "${MODULES[@]}"; do cat "$SRC/Sources/${m%%:*}"/*.swift; done |
           sed -n 's/^import \(C[A-Za-z0-9]*\)$/\1/p' | sort -u); do
    [ -f "$SRC/Sources/$c/module.modulemap" ] || continue
    FLAGS+=(-I "$SRC/Sources/$c")
    LIBS+=($(sed -n 's/^ *link "\(.*\)"/-l\1/p' "$SRC/Sources/$c/module.modulemap"))
    # A module whose headers include others' (CPoppler: glib, cairo) names its pkg-config
    # package in Package.swift; its include paths are handed to clang.
    pc=$(sed -n "s/.*name: \"$c\", path: \"[^\"]*\", pkgConfig: \"\([^\"]*\)\".*/\1/p" "$SRC/Package.swift")
    if [ -n "$pc" ]; then
        for flag in $(pkg-config --cflags "$pc"); do FLAGS+=(-Xcc "$flag"); done
    fi
done

# build_module NAME SOURCE_DIR: one object and one .swiftmodule per module, whole-module.
# Rebuilt when the sources (names or contents), the C modules or the flags change.
build_module() {
    local name=$1 dir=$SRC/Sources/$2 stamp
    stamp=$( (echo "${FLAGS[*]}"; sha1sum "$dir"/*.swift; cat "$SRC"/Sources/C*/module.modulemap) | sha1sum)
    if [ -f "$BUILD/$name.o" ] && [ "$(cat "$BUILD/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
        return
    fi
    echo "build: $name"
    rm -f "$BUILD/$name.stamp"
    "$SWIFTC" "${FLAGS[@]}" -wmo -module-name "$name" -emit-module -emit-module-path "$BUILD/$name.swiftmodule" \
        -c -o "$BUILD/$name.o" "$dir"/*.swift
    echo "$stamp" >"$BUILD/$name.stamp"
}

# build_target TARGET MODULE...: the driver fuzz/targets/TARGET.swift linked with the modules.
build_target() {
    local target=$1; shift
    local objects=() module
    for module in "$@"; do objects+=("$BUILD/$module.o"); done
    local binary=$BUILD/fuzz-$target
    if [ -f "$binary" ] && [ -z "$(find "$FUZZ_DIR/targets/$target.swift" "${objects[@]}" -newer "$binary" -print -quit)" ]; then
        return
    fi
    echo "link: fuzz-$target"
    # lld: gold prints hundreds of "Cannot export local symbol __asan_check_*" warnings.
    "$SWIFTC" "${FLAGS[@]}" -use-ld=lld -module-name "Fuzz_$target" "$FUZZ_DIR/targets/$target.swift" \
        "${objects[@]}" "${LIBS[@]}" -o "$binary"
}

if [ -z "${FUZZ_NO_BUILD:-}" ]; then
    mkdir -p "$BUILD"
    for m in "${MODULES[@]}"; do build_module "${m#*:}" "${m%%:*}"; done
    for target in "${targets[@]}"; do
        case $target in
            cascade) build_target cascade GlossGeometry GlossContract GlossImaging GlossNeuralNetwork GlossFaceDetection ;;
            model) build_target model GlossGeometry GlossContract GlossImaging GlossNeuralNetwork GlossFaceDetection ;;
            exif | image) build_target "$target" GlossGeometry GlossImaging ;;
            *) echo "unknown target: $target (cascade, exif, image, model)" >&2; exit 2 ;;
        esac
    done
    # PDF pages are drawn by gloss-render beside the running program: the image target needs
    # one in $BUILD (built plainly by SwiftPM, in a scratch path of its own).
    if [[ " ${targets[*]} " == *" image "* ]]; then
        echo "build: gloss-render"
        (cd "$SRC" && swift build -c release --product gloss-render --scratch-path "$BUILD/spm" >/dev/null)
        cp "$BUILD/spm/release/gloss-render" "$BUILD/gloss-render"
    fi
fi

[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0

# Leaks are findings too, but one report per process is enough to read.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/fuzz/lsan.supp}
# Swift's own crash backtracer reads memory through a helper that ASan reports (and it can hang
# under ASan); libFuzzer's handler prints the stack, "Swift runtime failure: ..." frame included.
export SWIFT_BACKTRACE=enable=no

failed=0
summary=()
for target in "${targets[@]}"; do
    corpus=$FUZZ_DIR/corpus/$target crashes=$FUZZ_DIR/crashes/$target log=$FUZZ_DIR/logs/$target.log
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    dict=()
    case $target in
        cascade) dict=(-dict="$FUZZ_DIR/xml.dict") ;;
        exif | image) dict=(-dict="$FUZZ_DIR/exif.dict") ;;
    esac
    echo "fuzz: $target for ${SECONDS_EACH}s (log: ${log#"$ROOT"/})"
    before=$(ls "$crashes" | wc -l)
    status=0
    # New inputs go to the first directory (corpus); the seeds are only read.
    "$BUILD/fuzz-$target" "$corpus" "$FUZZ_DIR/seeds/$target" "${dict[@]}" \
        -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "${extra[@]}" >"$log" 2>&1 || status=$?
    runs=$(grep -a -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
    after=$(ls "$crashes" | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        failed=1
        result="CRASH (exit $status; $((after - before)) new in ${crashes#"$ROOT"/}/)"
        grep -a -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Swift runtime failure|Fatal error' "$log" | head -3 | sed 's/^/    /' || true
    else
        result="ok"
    fi
    summary+=("$(printf '%-8s %12s executions  %s' "$target" "$runs" "$result")")
done

echo
printf '%s\n' "${summary[@]}"
exit $failed
