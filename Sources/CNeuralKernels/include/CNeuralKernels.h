#ifndef GLOSS_C_NEURAL_KERNELS_H
#define GLOSS_C_NEURAL_KERNELS_H

#include <stdint.h>

/// Asks Linux for the AMX tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, feature 18): 1 when
/// this process may use the tiles, 0 otherwise (an older kernel, another system, not x86-64).
/// Once per process, before any tile instruction; the caller has seen amx_tile in the flags.
int gloss_amx_request_tiles(void);

/// The floats of `count` (rows x 16) as bf16 pairs: converts a packed block of activations,
/// column p of row k at `input + k * rowStride + (p / 16) * tileStride + p % 16`, into tiles
/// `[tile][chunk][16 pairs][16 columns][2]` (rows k and k+1 side by side, the VNNI layout a
/// TDPBF16PS's second source reads), `chunks` of 32 rows, rows past `depth` and columns past
/// `columns` zero. Rounds to nearest even (VCVTNEPS2BF16). Needs AVX512-BF16.
void gloss_bf16_pack(const float *input, long rowStride, long tileStride, int depth, int columns, int chunks,
                     uint16_t *output);

/// A thread's reused buffer for a packed block (`gloss_bf16_pack`'s or `gloss_int16_pack`'s
/// output): at least `count` 16-bit values, 64-byte aligned, grown (never shrunk) as needed
/// and freed when the thread ends. NULL when memory runs out.
uint16_t *gloss_block_buffer(long count);

/// Up to 32 x 32 sums on AMX tiles: `rowTiles` (1 or 2) tiles of sixteen weight rows, the
/// first at `a` and the second `aTileStride` bf16 values on, each `[chunk][16 rows][32]`; by
/// `columnTiles` (1 or 2) tiles of sixteen columns of `gloss_bf16_pack`'s layout, the first at
/// `b`, the second `bTileStride` bf16 values on; over `chunks` chunks of 32 of the depth.
/// Writes `sums` `[32][32]` floats (the rows and columns it computes). Configures the thread's
/// tiles the first time a thread calls it. Needs AMX-TILE and AMX-BF16, and the permission.
void gloss_amx_product(const uint16_t *a, long aTileStride, int rowTiles, const uint16_t *b, long bTileStride,
                       int columnTiles, int chunks, float *sums);

/// A packed block of activations (`[tile][k][16]` floats, `depth` rows, `columns` columns) as
/// 16-bit integers for `gloss_int16_kernel`: each column scaled so its largest magnitude is
/// `limit` (`scales[p]` the float one integer stands for; 0 for a column of zeros, and for
/// the columns past `columns` of the last tile, whose values are zeros in a packed block) and
/// rounded to nearest, written `[tile][pair][16 columns][2]` (rows 2j and 2j + 1 of a column
/// side by side, the odd row past `depth` zero). Needs AVX2.
void gloss_int16_pack(const float *packed, int depth, int columns, float limit, int16_t *output, float *scales);

/// Six rows by sixteen columns of 32-bit sums over `pairs` pairs of the depth: `a` the six
/// rows' weights `[pair][6]`, each a pair of 16-bit integers (row 2j low, 2j + 1 high), `b` one
/// tile of `gloss_int16_pack`'s layout; writes `sums` `[6][16]`. The caller's scales keep
/// every sum within 32 bits. Needs AVX2.
void gloss_int16_kernel(const int32_t *a, const int16_t *b, int pairs, int32_t *sums);

/// `gloss_int16_kernel`'s sums on AVX-512 VNNI, over `tiles` (1 to 4) tiles at once: the
/// first at `b`, each next `tileStride` values on; writes `sums` `[6][64]` (the first `tiles`
/// sixteen of each row). The same integer sums as `gloss_int16_kernel`'s, bit for bit. Needs
/// AVX512-F, -BW and -VNNI.
void gloss_int16_wide_kernel(const int32_t *a, const int16_t *b, long tileStride, int tiles, int pairs, int32_t *sums);

/// Sets the calling thread's floating-point control (MXCSR) to flush results below float's
/// smallest normal number to zero (FTZ) and to read such inputs as zero (DAZ), and returns the
/// control as it was, for `gloss_restore_float_control`. A network's values that small
/// (e^-87 and less: a GELU's far tail) change nothing it computes, but each one costs a
/// microcode assist of about a hundred cycles in every product that reads it. 0 and no
/// change where the processor is not x86-64.
unsigned gloss_flush_subnormals(void);

/// Puts back the control `gloss_flush_subnormals` returned.
void gloss_restore_float_control(unsigned control);

#endif
