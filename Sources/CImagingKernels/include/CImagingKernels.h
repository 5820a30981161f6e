#ifndef GLOSS_IMAGING_KERNELS_H
#define GLOSS_IMAGING_KERNELS_H

#include <stdint.h>

/// Where an output row's first pixel centre falls in the input, and how it moves: one step
/// along the row (`stepX*`) and one down a column (`stepY*`), in input pixels, with the
/// input's pixel (i, j) at (i, j) (centres, not corners).
typedef struct {
    double originX, originY;
    double stepXx, stepXy;
    double stepYx, stepYy;
} GlossAffineSampling;

/// Fills `output` (`outWidth` x `outHeight` x `channels` bytes) by sampling `input`
/// (`width` x `height` x `channels`) along `sampling`: a cubic (Keys, a = -0.5) from sixteen
/// neighbours inside the page, a bilinear mix one pixel from its edge, `paper` (one value a
/// channel) beyond it. Every pixel is computed in doubles in one fixed order, so the result
/// is the same to the bit whichever path (vectors or not) computes it.
void gloss_level(const uint8_t *input, int width, int height, int channels, uint8_t *output, int outWidth,
                 int outHeight, GlossAffineSampling sampling, const uint8_t *paper);

/// The same with the vector path turned off: the reference the vector path must equal.
void gloss_level_scalar(const uint8_t *input, int width, int height, int channels, uint8_t *output, int outWidth,
                        int outHeight, GlossAffineSampling sampling, const uint8_t *paper);

#endif
