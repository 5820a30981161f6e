// The levelling's resample (GlossImaging's `Raster.transformed(by:background:)`), in C for the
// AVX2 gather: four output pixels at once, each lane computing what the scalar path computes,
// in the same order, in doubles, with no fused multiply-add, so both paths give the same bytes.
// Compiled for any x86-64 (or any other processor): the vector path carries its own target
// and runs only where the processor says it has AVX2.
#pragma STDC FP_CONTRACT OFF
#include "CImagingKernels.h"

#include <math.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// Keys' cubic convolution, a = -0.5: the weights of the four samples around a point t (0..<1)
// past the second are far(1 + t), near(t), near(1 - t), far(2 - t).
#define KEYS_A (-0.5)
static inline double near_weight(double d) { return ((KEYS_A + 2) * d - (KEYS_A + 3)) * d * d + 1; }
static inline double far_weight(double d) { return ((KEYS_A * d - 5 * KEYS_A) * d + 8 * KEYS_A) * d - 4 * KEYS_A; }

static inline uint8_t clamped(double value) {
    double v = value >= 0 ? value : 0;
    v = v < 255 ? v : 255;
    return (uint8_t)v;
}

/// One output pixel at source point (sx, sy), relative to pixel centres.
static inline void level_pixel(const uint8_t *input, int w, int h, int c, uint8_t *out, double sx, double sy,
                               const double *paper) {
    if (!(sx > -1 && sy > -1 && sx < (double)w && sy < (double)h)) {
        for (int k = 0; k < c; k++) out[k] = (uint8_t)paper[k];
        return;
    }
    double fx = floor(sx), fy = floor(sy);
    int x0 = (int)fx, y0 = (int)fy;
    double ax = sx - fx, ay = sy - fy;
    if (x0 >= 1 && y0 >= 1 && x0 + 2 < w && y0 + 2 < h) {
        double wx[4] = {far_weight(1 + ax), near_weight(ax), near_weight(1 - ax), far_weight(2 - ax)};
        double wy[4] = {far_weight(1 + ay), near_weight(ay), near_weight(1 - ay), far_weight(2 - ay)};
        const uint8_t *corner = input + ((long)(y0 - 1) * w + x0 - 1) * c;
        for (int k = 0; k < c; k++) {
            double sum = 0.0;
            for (int j = 0; j < 4; j++) {
                const uint8_t *row = corner + (long)j * w * c + k;
                sum += wy[j] * (wx[0] * (double)row[0] + wx[1] * (double)row[c] + wx[2] * (double)row[2 * c]
                                + wx[3] * (double)row[3 * c]);
            }
            out[k] = clamped(sum + 0.5);
        }
        return;
    }
    if (x0 >= 0 && y0 >= 0 && x0 + 1 < w && y0 + 1 < h) {
        const uint8_t *top_left = input + ((long)y0 * w + x0) * c, *bottom_left = top_left + (long)w * c;
        for (int k = 0; k < c; k++) {
            double top = (double)top_left[k] + ((double)top_left[c + k] - (double)top_left[k]) * ax;
            double bottom = (double)bottom_left[k] + ((double)bottom_left[c + k] - (double)bottom_left[k]) * ax;
            out[k] = (uint8_t)(top + (bottom - top) * ay + 0.5);
        }
        return;
    }
    for (int k = 0; k < c; k++) {
#define VALUE(x, y) ((x) >= 0 && (y) >= 0 && (x) < w && (y) < h ? (double)input[((long)(y) * w + (x)) * c + k] : paper[k])
        double top = VALUE(x0, y0) * (1 - ax) + VALUE(x0 + 1, y0) * ax;
        double bottom = VALUE(x0, y0 + 1) * (1 - ax) + VALUE(x0 + 1, y0 + 1) * ax;
#undef VALUE
        out[k] = (uint8_t)(top * (1 - ay) + bottom * ay + 0.5);
    }
}

static void level_rows_scalar(const uint8_t *input, int w, int h, int c, uint8_t *output, int outWidth, int outHeight,
                              GlossAffineSampling s, const double *paper) {
    for (int oy = 0; oy < outHeight; oy++) {
        double sx = s.originX + (double)oy * s.stepYx - 0.5;
        double sy = s.originY + (double)oy * s.stepYy - 0.5;
        uint8_t *out = output + (long)oy * outWidth * c;
        for (int ox = 0; ox < outWidth; ox++, out += c) {
            level_pixel(input, w, h, c, out, sx, sy, paper);
            sx += s.stepXx;
            sy += s.stepXy;
        }
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static inline __m256d near_weights(__m256d d) {
    __m256d a = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(KEYS_A + 2), d), _mm256_set1_pd(KEYS_A + 3));
    return _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(a, d), d), _mm256_set1_pd(1));
}

__attribute__((target("avx2")))
static inline __m256d far_weights(__m256d d) {
    __m256d a = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(KEYS_A), d), _mm256_set1_pd(5 * KEYS_A));
    a = _mm256_add_pd(_mm256_mul_pd(a, d), _mm256_set1_pd(8 * KEYS_A));
    return _mm256_sub_pd(_mm256_mul_pd(a, d), _mm256_set1_pd(4 * KEYS_A));
}

/// The four weights of each lane's point t (its four fractions, 0..<1).
__attribute__((target("avx2")))
static inline void cubic_weights(__m256d t, __m256d weights[4]) {
    const __m256d one = _mm256_set1_pd(1), two = _mm256_set1_pd(2);
    weights[0] = far_weights(_mm256_add_pd(one, t));
    weights[1] = near_weights(t);
    weights[2] = near_weights(_mm256_sub_pd(one, t));
    weights[3] = far_weights(_mm256_sub_pd(two, t));
}

/// `sum` plus a row of four taps weighed across and that row's weight down, in the scalar
/// path's order.
__attribute__((target("avx2")))
static inline __m256d add_row(__m256d sum, const __m256d wx[4], __m256d wy, const __m256d taps[4]) {
    __m256d across = _mm256_add_pd(_mm256_mul_pd(wx[0], taps[0]), _mm256_mul_pd(wx[1], taps[1]));
    across = _mm256_add_pd(across, _mm256_mul_pd(wx[2], taps[2]));
    across = _mm256_add_pd(across, _mm256_mul_pd(wx[3], taps[3]));
    return _mm256_add_pd(sum, _mm256_mul_pd(wy, across));
}

/// Channel `k` of four pixels, each lane's sum rounded and clamped as the scalar path does.
__attribute__((target("avx2")))
static inline void store_four(uint8_t *out, int c, int k, __m256d sum) {
    __m256d v = _mm256_add_pd(sum, _mm256_set1_pd(0.5));
    v = _mm256_min_pd(_mm256_max_pd(v, _mm256_setzero_pd()), _mm256_set1_pd(255));
    int32_t values[4];
    _mm_storeu_si128((__m128i *)values, _mm256_cvttpd_epi32(v));
    for (int l = 0; l < 4; l++) out[l * c + k] = (uint8_t)values[l];
}

/// Four pixels inside the page, each lane's sixteen neighbours gathered a byte at a time (a
/// 32-bit gather, masked): `base` holds each lane's top-left neighbour's first byte.
__attribute__((target("avx2")))
static inline void level_four(const uint8_t *input, int w, int c, uint8_t *out, __m128i base, __m256d ax, __m256d ay) {
    __m256d wx[4], wy[4];
    cubic_weights(ax, wx);
    cubic_weights(ay, wy);
    const __m128i low_byte = _mm_set1_epi32(0xff);
    for (int k = 0; k < c; k++) {
        __m256d sum = _mm256_setzero_pd();
        for (int j = 0; j < 4; j++) {
            __m128i row = _mm_add_epi32(base, _mm_set1_epi32(j * w * c + k));
            __m256d taps[4];
            for (int i = 0; i < 4; i++) {
                __m128i bytes = _mm_i32gather_epi32((const int *)input, _mm_add_epi32(row, _mm_set1_epi32(i * c)), 1);
                taps[i] = _mm256_cvtepi32_pd(_mm_and_si128(bytes, low_byte));
            }
            sum = add_row(sum, wx, wy[j], taps);
        }
        store_four(out, c, k, sum);
    }
}

/// Four pixels inside the page whose neighbours lie side by side: the same row of the input,
/// each lane a pixel right of the one before (a small skew, most of a page). A tap's four
/// lanes are four bytes `c` apart, read with one load and one shuffle.
__attribute__((target("avx2")))
static inline void level_four_side_by_side(const uint8_t *corner, int w, int c, uint8_t *out, __m256d ax, __m256d ay) {
    __m256d wx[4], wy[4];
    cubic_weights(ax, wx);
    cubic_weights(ay, wy);
    const __m128i every = _mm_setr_epi8(0, (char)c, (char)(2 * c), (char)(3 * c), -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                        -1, -1, -1);
    for (int k = 0; k < c; k++) {
        __m256d sum = _mm256_setzero_pd();
        for (int j = 0; j < 4; j++) {
            const uint8_t *row = corner + (long)j * w * c + k;
            __m256d taps[4];
            for (int i = 0; i < 4; i++) {
                __m128i bytes = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(row + i * c)), every);
                taps[i] = _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(bytes));
            }
            sum = add_row(sum, wx, wy[j], taps);
        }
        store_four(out, c, k, sum);
    }
}

__attribute__((target("avx2")))
static void level_rows_avx2(const uint8_t *input, int w, int h, int c, uint8_t *output, int outWidth, int outHeight,
                            GlossAffineSampling s, const double *paper) {
    // A gather reads four bytes where it needs one: a lane may start no later than four bytes
    // before the end.
    const long last = (long)w * h * c - 4;
    for (int oy = 0; oy < outHeight; oy++) {
        double sx = s.originX + (double)oy * s.stepYx - 0.5;
        double sy = s.originY + (double)oy * s.stepYy - 0.5;
        uint8_t *out = output + (long)oy * outWidth * c;
        int ox = 0;
        while (ox + 4 <= outWidth) {
            double xs[4], ys[4], axs[4], ays[4];
            int32_t bases[4];
            int inside = 1, side_by_side = 1;
            xs[0] = sx;
            ys[0] = sy;
            for (int l = 1; l < 4; l++) {
                xs[l] = xs[l - 1] + s.stepXx;
                ys[l] = ys[l - 1] + s.stepXy;
            }
            for (int l = 0; l < 4; l++) {
                if (!(xs[l] > -1 && ys[l] > -1 && xs[l] < (double)w && ys[l] < (double)h)) { inside = 0; break; }
                double fx = floor(xs[l]), fy = floor(ys[l]);
                int x0 = (int)fx, y0 = (int)fy;
                long corner = ((long)(y0 - 1) * w + x0 - 1) * c;
                long farthest = corner + ((long)3 * w + 3) * c + c - 1;
                if (!(x0 >= 1 && y0 >= 1 && x0 + 2 < w && y0 + 2 < h) || farthest > last) { inside = 0; break; }
                axs[l] = xs[l] - fx;
                ays[l] = ys[l] - fy;
                bases[l] = (int32_t)corner;
                // Each lane's neighbours a pixel right of the lane before's, and the last lane's
                // last load (16 bytes from its last tap's last channel) inside the input.
                if (corner != bases[0] + (long)l * c || farthest + 16 > last + 4) side_by_side = 0;
            }
            if (inside && side_by_side) {
                level_four_side_by_side(input + bases[0], w, c, out, _mm256_loadu_pd(axs), _mm256_loadu_pd(ays));
                out += 4 * c;
                ox += 4;
                sx = xs[3] + s.stepXx;
                sy = ys[3] + s.stepXy;
                continue;
            }
            if (inside) {
                level_four(input, w, c, out, _mm_loadu_si128((const __m128i *)bases), _mm256_loadu_pd(axs),
                           _mm256_loadu_pd(ays));
                out += 4 * c;
                ox += 4;
                sx = xs[3] + s.stepXx;
                sy = ys[3] + s.stepXy;
                continue;
            }
            // The first pixel alone, then try four again from the next.
            level_pixel(input, w, h, c, out, sx, sy, paper);
            out += c;
            ox++;
            sx += s.stepXx;
            sy += s.stepXy;
        }
        for (; ox < outWidth; ox++, out += c) {
            level_pixel(input, w, h, c, out, sx, sy, paper);
            sx += s.stepXx;
            sy += s.stepXy;
        }
    }
}
#endif

static void paper_values(const uint8_t *paper, int c, double *values) {
    for (int k = 0; k < c; k++) values[k] = (double)paper[k];
}

void gloss_level_scalar(const uint8_t *input, int width, int height, int channels, uint8_t *output, int outWidth,
                        int outHeight, GlossAffineSampling sampling, const uint8_t *paper) {
    double values[4];
    paper_values(paper, channels, values);
    level_rows_scalar(input, width, height, channels, output, outWidth, outHeight, sampling, values);
}

void gloss_level(const uint8_t *input, int width, int height, int channels, uint8_t *output, int outWidth,
                 int outHeight, GlossAffineSampling sampling, const uint8_t *paper) {
    double values[4];
    paper_values(paper, channels, values);
#if defined(__x86_64__)
    // Byte offsets go to the gather as 32-bit integers.
    if (__builtin_cpu_supports("avx2") && (long)width * height * channels < INT32_MAX) {
        level_rows_avx2(input, width, height, channels, output, outWidth, outHeight, sampling, values);
        return;
    }
#endif
    level_rows_scalar(input, width, height, channels, output, outWidth, outHeight, sampling, values);
}
