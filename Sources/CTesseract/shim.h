#ifndef GLOSS_CTESSERACT_H
#define GLOSS_CTESSERACT_H
// The C API only forward-declares Leptonica's Pix: the images Gloss hands Tesseract are made
// by GlossImaging, the one module that includes Leptonica, and arrive here as opaque pointers.
#include <tesseract/capi.h>
#endif
