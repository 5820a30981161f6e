#ifndef GLOSS_CPNG_H
#define GLOSS_CPNG_H
#include <png.h>
#endif
