#ifndef GLOSS_CZLIB_H
#define GLOSS_CZLIB_H
#include <zlib.h>

/*
 * zlib, for the Flate streams of the PDF output. deflateInit is a macro passing the library's
 * version and the size of z_stream, which Swift cannot call; this function makes the call.
 */
static inline int gloss_deflate_init(z_stream *stream, int level) {
    return deflateInit(stream, level);
}
#endif
