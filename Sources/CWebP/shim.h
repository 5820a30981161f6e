#ifndef GLOSS_CWEBP_H
#define GLOSS_CWEBP_H
#include <webp/decode.h>
#endif
