#ifndef GLOSS_CTURBOJPEG_H
#define GLOSS_CTURBOJPEG_H
#include <stddef.h>
#include <turbojpeg.h>
#endif
