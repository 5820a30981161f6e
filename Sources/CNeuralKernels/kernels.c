// Intel AMX (bf16 tiles), AVX512-BF16 and AVX2 16-bit integer kernels for GlossNeuralNetwork's
// packed product.
// Compiled for any x86-64: each function carries its own target, and none runs before
// KernelChoice has seen the flags and gloss_amx_request_tiles has said yes.
#include "CNeuralKernels.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GLOSS_ARCH_REQ_XCOMP_PERM 0x1023
#define GLOSS_XFEATURE_XTILEDATA 18

int gloss_amx_request_tiles(void) {
    return syscall(SYS_arch_prctl, GLOSS_ARCH_REQ_XCOMP_PERM, GLOSS_XFEATURE_XTILEDATA) == 0 ? 1 : 0;
}

__attribute__((target("avx512f,avx512bw,avx512bf16")))
void gloss_bf16_pack(const float *input, long rowStride, long tileStride, int depth, int columns, int chunks,
                     uint16_t *output) {
    int tiles = (columns + 15) / 16, pairs = chunks * 16;
    for (int tile = 0; tile < tiles; tile++) {
        int width = columns - tile * 16 < 16 ? columns - tile * 16 : 16;
        __mmask16 mask = (__mmask16)((1u << width) - 1u);
        const float *source = input + (long)tile * tileStride;
        uint16_t *target = output + (long)tile * pairs * 32;
        for (int pair = 0; pair < pairs; pair++) {
            int k = 2 * pair;
            __m512 even = k < depth ? _mm512_maskz_loadu_ps(mask, source + (long)k * rowStride) : _mm512_setzero_ps();
            __m512 odd = k + 1 < depth ? _mm512_maskz_loadu_ps(mask, source + (long)(k + 1) * rowStride) : _mm512_setzero_ps();
            __m256i low = (__m256i)_mm512_cvtneps_pbh(even), high = (__m256i)_mm512_cvtneps_pbh(odd);
            __m512i both = _mm512_or_si512(_mm512_cvtepu16_epi32(low), _mm512_slli_epi32(_mm512_cvtepu16_epi32(high), 16));
            _mm512_storeu_si512((void *)(target + pair * 32), both);
        }
    }
}

/// The tile configuration: palette 1, all eight tiles sixteen rows of 64 bytes.
struct gloss_tile_config {
    uint8_t palette;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t columns[16];
    uint8_t rows[16];
};

static __thread int gloss_tiles_configured;

__attribute__((target("amx-tile")))
static void gloss_configure_tiles(void) {
    struct gloss_tile_config config;
    memset(&config, 0, sizeof config);
    config.palette = 1;
    for (int t = 0; t < 8; t++) {
        config.columns[t] = 64;
        config.rows[t] = 16;
    }
    _tile_loadconfig(&config);
    gloss_tiles_configured = 1;
}

__attribute__((target("amx-tile,amx-bf16")))
void gloss_amx_product(const uint16_t *a, long aTileStride, int rowTiles, const uint16_t *b, long bTileStride,
                       int columnTiles, int chunks, float *sums) {
    if (!gloss_tiles_configured) gloss_configure_tiles();
    // Tiles 0-3 the sums (row tile r, column tile c at 2r + c), 4-5 the weights, 6-7 the columns.
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    // The branches cost nothing beside a tile product's 16 cycles; the tile numbers must be constants.
    const uint16_t *a1 = a + aTileStride, *b1 = b + bTileStride;
    int twoRows = rowTiles == 2, twoColumns = columnTiles == 2;
    for (int chunk = 0; chunk < chunks; chunk++) {
        long at = (long)chunk * 512;
        _tile_loadd(4, a + at, 64);
        _tile_loadd(6, b + at, 64);
        _tile_dpbf16ps(0, 4, 6);
        if (twoColumns) {
            _tile_loadd(7, b1 + at, 64);
            _tile_dpbf16ps(1, 4, 7);
        }
        if (twoRows) {
            _tile_loadd(5, a1 + at, 64);
            _tile_dpbf16ps(2, 5, 6);
            if (twoColumns) _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, sums, 128);
    if (twoColumns) _tile_stored(1, sums + 16, 128);
    if (twoRows) _tile_stored(2, sums + 512, 128);
    if (twoRows && twoColumns) _tile_stored(3, sums + 528, 128);
}

__attribute__((target("avx2,fma")))
void gloss_int16_pack(const float *packed, int depth, int columns, float limit, int16_t *output, float *scales) {
    int tiles = (columns + 15) / 16, pairs = (depth + 1) / 2;
    const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    for (int tile = 0; tile < tiles; tile++) {
        const float *source = packed + (long)tile * depth * 16;
        int16_t *target = output + (long)tile * pairs * 32;
        // Four running maxima a half, row k in the (k mod 4)th, then combined in a fixed order:
        // with one, each maximum waited on the one before, and that loop held 57% of the
        // packing's samples (`perf annotate` of the same loop in AVX-512).
        __m256 low0 = zero, low1 = zero, low2 = zero, low3 = zero;
        __m256 high0 = zero, high1 = zero, high2 = zero, high3 = zero;
#define GLOSS_LARGEST(low, high, k)                                                              \
    low = _mm256_max_ps(low, _mm256_andnot_ps(sign, _mm256_loadu_ps(source + (k) * 16)));       \
    high = _mm256_max_ps(high, _mm256_andnot_ps(sign, _mm256_loadu_ps(source + (k) * 16 + 8)))
        int k = 0;
        for (; k + 4 <= depth; k += 4) {
            GLOSS_LARGEST(low0, high0, k);
            GLOSS_LARGEST(low1, high1, k + 1);
            GLOSS_LARGEST(low2, high2, k + 2);
            GLOSS_LARGEST(low3, high3, k + 3);
        }
        if (k < depth) { GLOSS_LARGEST(low0, high0, k); }
        if (k + 1 < depth) { GLOSS_LARGEST(low1, high1, k + 1); }
        if (k + 2 < depth) { GLOSS_LARGEST(low2, high2, k + 2); }
#undef GLOSS_LARGEST
        __m256 top0 = _mm256_max_ps(_mm256_max_ps(low0, low1), _mm256_max_ps(low2, low3));
        __m256 top1 = _mm256_max_ps(_mm256_max_ps(high0, high1), _mm256_max_ps(high2, high3));
        // A column of zeros keeps the scale 0 and its integers 0.
        __m256 limits = _mm256_set1_ps(limit);
        __m256 live0 = _mm256_cmp_ps(top0, zero, _CMP_GT_OQ), live1 = _mm256_cmp_ps(top1, zero, _CMP_GT_OQ);
        __m256 up0 = _mm256_and_ps(live0, _mm256_div_ps(limits, _mm256_max_ps(top0, _mm256_set1_ps(1e-30f))));
        __m256 up1 = _mm256_and_ps(live1, _mm256_div_ps(limits, _mm256_max_ps(top1, _mm256_set1_ps(1e-30f))));
        _mm256_storeu_ps(scales + tile * 16, _mm256_div_ps(top0, limits));
        _mm256_storeu_ps(scales + tile * 16 + 8, _mm256_div_ps(top1, limits));
        for (int pair = 0; pair < pairs; pair++) {
            int k = 2 * pair;
            for (int half = 0; half < 2; half++) {
                __m256 up = half ? up1 : up0;
                __m256i even = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(source + k * 16 + 8 * half), up));
                __m256i odd = k + 1 < depth
                    ? _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(source + (k + 1) * 16 + 8 * half), up))
                    : _mm256_setzero_si256();
                __m256i both = _mm256_blend_epi16(even, _mm256_slli_epi32(odd, 16), 0xAA);
                _mm256_storeu_si256((__m256i *)(target + pair * 32 + 16 * half), both);
            }
        }
    }
}

__attribute__((target("avx2,fma")))
void gloss_int16_kernel(const int32_t *a, const int16_t *b, int pairs, int32_t *sums) {
    // Twelve sums, a row's weights and one product in registers; the columns are read from the
    // first-level cache by each product (written with the two registers of columns instead,
    // clang ran out of registers and kept a sum on the stack).
    __m256i c[12];
    for (int i = 0; i < 12; i++) c[i] = _mm256_setzero_si256();
    for (int pair = 0; pair < pairs; pair++) {
        const __m256i *x = (const __m256i *)(b + pair * 32);
        const int32_t *w = a + pair * 6;
#pragma clang loop unroll(full)
        for (int r = 0; r < 6; r++) {
            __m256i weight = _mm256_set1_epi32(w[r]);
            c[2 * r] = _mm256_add_epi32(c[2 * r], _mm256_madd_epi16(weight, _mm256_loadu_si256(x)));
            c[2 * r + 1] = _mm256_add_epi32(c[2 * r + 1], _mm256_madd_epi16(weight, _mm256_loadu_si256(x + 1)));
        }
    }
    for (int i = 0; i < 12; i++) _mm256_storeu_si256((__m256i *)sums + i, c[i]);
}

// Six rows by `tiles` tiles of sixteen columns, the tile count a constant at each call so that
// the 24 sums stay in registers: each pair of the depth loads the tiles' 64 bytes once and
// multiplies them by each row's pair (VPDPWSSD: two products and their sum added to 32 bits,
// without saturation, as VPMADDWD and VPADDD give them).
__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline))
static inline void gloss_int16_wide_tiles(const int32_t *a, const int16_t *b, long tileStride, int pairs, int32_t *sums,
                                          const int tiles) {
    __m512i c[6][4];
    for (int r = 0; r < 6; r++)
        for (int t = 0; t < tiles; t++) c[r][t] = _mm512_setzero_si512();
    for (int pair = 0; pair < pairs; pair++) {
        __m512i x[4];
        for (int t = 0; t < tiles; t++) x[t] = _mm512_loadu_si512((const void *)(b + t * tileStride + pair * 32));
        const int32_t *w = a + pair * 6;
        for (int r = 0; r < 6; r++) {
            __m512i weight = _mm512_set1_epi32(w[r]);
            for (int t = 0; t < tiles; t++) c[r][t] = _mm512_dpwssd_epi32(c[r][t], weight, x[t]);
        }
    }
    for (int r = 0; r < 6; r++)
        for (int t = 0; t < tiles; t++) _mm512_storeu_si512((void *)(sums + r * 64 + t * 16), c[r][t]);
}

__attribute__((target("avx512f,avx512bw,avx512vnni")))
void gloss_int16_wide_kernel(const int32_t *a, const int16_t *b, long tileStride, int tiles, int pairs, int32_t *sums) {
    switch (tiles) {
    case 4: gloss_int16_wide_tiles(a, b, tileStride, pairs, sums, 4); break;
    case 3: gloss_int16_wide_tiles(a, b, tileStride, pairs, sums, 3); break;
    case 2: gloss_int16_wide_tiles(a, b, tileStride, pairs, sums, 2); break;
    default: gloss_int16_wide_tiles(a, b, tileStride, pairs, sums, 1); break;
    }
}

unsigned gloss_flush_subnormals(void) {
    unsigned control = _mm_getcsr();
    // Bit 15 flushes results to zero, bit 6 reads subnormal inputs as zero.
    _mm_setcsr(control | 0x8040u);
    return control;
}

void gloss_restore_float_control(unsigned control) { _mm_setcsr(control); }

#else

unsigned gloss_flush_subnormals(void) { return 0; }
void gloss_restore_float_control(unsigned control) { (void)control; }
int gloss_amx_request_tiles(void) { return 0; }
void gloss_bf16_pack(const float *input, long rowStride, long tileStride, int depth, int columns, int chunks,
                     uint16_t *output) { abort(); }
void gloss_amx_product(const uint16_t *a, long aTileStride, int rowTiles, const uint16_t *b, long bTileStride,
                       int columnTiles, int chunks, float *sums) { abort(); }
void gloss_int16_pack(const float *packed, int depth, int columns, float limit, int16_t *output, float *scales) { abort(); }
void gloss_int16_kernel(const int32_t *a, const int16_t *b, int pairs, int32_t *sums) { abort(); }
void gloss_int16_wide_kernel(const int32_t *a, const int16_t *b, long tileStride, int tiles, int pairs, int32_t *sums) {
    abort();
}

#endif

/// The thread's buffer: its size in 16-bit values first, then the values (64-byte aligned).
static pthread_key_t gloss_buffer_key;
static pthread_once_t gloss_buffer_once = PTHREAD_ONCE_INIT;
static void gloss_make_buffer_key(void) { pthread_key_create(&gloss_buffer_key, free); }

struct gloss_buffer {
    long count;
    char padding[56];
};

uint16_t *gloss_block_buffer(long count) {
    pthread_once(&gloss_buffer_once, gloss_make_buffer_key);
    struct gloss_buffer *held = pthread_getspecific(gloss_buffer_key);
    if (held == NULL || held->count < count) {
        long grown = count + count / 4 + 1024;
        struct gloss_buffer *made = aligned_alloc(64, sizeof(struct gloss_buffer) + ((size_t)grown * 2 + 63) / 64 * 64);
        if (made == NULL) return NULL;
        made->count = grown;
        if (pthread_setspecific(gloss_buffer_key, made) != 0) {
            free(made);
            return NULL;
        }
        free(held);
        held = made;
    }
    return (uint16_t *)(held + 1);
}
