#ifndef GLOSS_PPOCR_MODELS_H
#define GLOSS_PPOCR_MODELS_H

#include <stddef.h>

/* The bytes of the PP-OCRv6 model files (models/ppocr/), assembled into the binary by
 * models.S. Each returns the first byte, 16-byte aligned, and sets *count to the length. */
const unsigned char *gloss_ppocr_detector(size_t *count);
const unsigned char *gloss_ppocr_recogniser(size_t *count);
const unsigned char *gloss_ppocr_classifier(size_t *count);
/* The recogniser's dictionary, ppocr-rec.characters: UTF-8, one character a line, in class order. */
const unsigned char *gloss_ppocr_characters(size_t *count);

#endif
