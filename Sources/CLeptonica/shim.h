#ifndef GLOSS_CLEPTONICA_H
#define GLOSS_CLEPTONICA_H
#include <leptonica/allheaders.h>
#endif
