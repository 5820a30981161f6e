#!/bin/sh
# Build libfacedetection (upstream YuNet, C++) and the reference driver against it.
#
#   bench/faces/yunet-reference/build.sh [LIBFACEDETECTION_SRC]
#
# LIBFACEDETECTION_SRC (argument or environment variable): a checkout of
# https://github.com/ShiqiYu/libfacedetection (the directory holding CMakeLists.txt and src/).
# Without it, or if it is not there, the script says so and exits 0: nothing in Gloss needs it.
#
# YUNET_REFERENCE_BUILD: where to build (default /tmp/yunet-reference). The driver ends up as
# $YUNET_REFERENCE_BUILD/reference.
# YUNET_AVX2: ON or OFF (default: ON when /proc/cpuinfo lists avx2). AVX-512 and NEON stay off,
# OpenMP is off (one thread).
#
# Needs cmake, g++ and nm (apt-get install -y cmake g++ binutils).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=${1:-${LIBFACEDETECTION_SRC:-}}
if [ -z "$src" ] || [ ! -f "$src/src/facedetectcnn.cpp" ] || [ ! -f "$src/CMakeLists.txt" ]; then
    echo "build.sh: no libfacedetection source (pass its path or set LIBFACEDETECTION_SRC); skipping"
    exit 0
fi
src=$(cd "$src" && pwd)
build=${YUNET_REFERENCE_BUILD:-/tmp/yunet-reference}
mkdir -p "$build"

if [ -z "${YUNET_AVX2:-}" ]; then
    if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then YUNET_AVX2=ON; else YUNET_AVX2=OFF; fi
fi

cmake -S "$src" -B "$build/upstream" \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DENABLE_AVX2="$YUNET_AVX2" -DENABLE_AVX512=OFF -DENABLE_NEON=OFF \
    -DUSE_OPENMP=OFF -DDEMO=OFF >"$build/cmake.log" 2>&1 ||
    { tail -20 "$build/cmake.log"; exit 1; }
cmake --build "$build/upstream" -j1 >>"$build/cmake.log" 2>&1 ||
    { tail -20 "$build/cmake.log"; exit 1; }
lib="$build/upstream/libfacedetection.a"

# The functions facedetectcnn-model.cpp calls in facedetectcnn.cpp that the driver wraps
# (its SYM_* macros). All must be defined in the library, or upstream has changed.
symbols="_Z36setDataFrom3x3S2P1to1x1S1P0FromImagePKhiiiii
_Z11convolutionRK9CDataBlobIfERK7FiltersIfEb
_Z13convolutionDPRK9CDataBlobIfERK7FiltersIfES6_b
_Z21convolution4layerUnitRK9CDataBlobIfERK7FiltersIfES6_S6_S6_b
_Z15maxpooling2x2S2RK9CDataBlobIfE
_Z10upsampleX2RK9CDataBlobIfE
_Z10elementAddRK9CDataBlobIfES2_
_Z16detection_outputRK9CDataBlobIfES2_S2_S2_ffii"
defined=$(nm -g --defined-only "$lib" | awk '{print $3}')
wraps=""
for s in $symbols; do
    if ! printf '%s\n' "$defined" | grep -qx "$s"; then
        echo "build.sh: $s is not in $lib: upstream's functions have changed" >&2
        exit 1
    fi
    wraps="$wraps -Wl,--wrap=$s"
done

flags="-std=c++17 -O2"
if [ "$YUNET_AVX2" = ON ]; then
    # The same definition and target flags as the library: facedetectcnn.h's blob layout
    # (_MALLOC_ALIGN) depends on them.
    flags="$flags -D_ENABLE_AVX2 -mavx2 -mfma"
fi
# shellcheck disable=SC2086
g++ $flags -I"$src/src" -I"$build/upstream" "$here/reference.cpp" "$lib" $wraps -o "$build/reference"

commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
echo "built $build/reference (libfacedetection $commit, AVX2 $YUNET_AVX2, OpenMP off)"
