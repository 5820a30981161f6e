#ifndef GLOSS_CPOPPLER_H
#define GLOSS_CPOPPLER_H
#include <poppler.h>
#include <cairo.h>
#endif
