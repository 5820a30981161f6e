#ifndef GLOSS_CTESSERACT_H
#define GLOSS_CTESSERACT_H
// The C API only forward-declares Leptonica's Pix; Gloss hands Tesseract raw 8-bit rows,
// so Leptonica's header is not needed here.
#include <tesseract/capi.h>
#endif
