#ifndef GLOSS_CPNG_H
#define GLOSS_CPNG_H
#include <png.h>
#include <setjmp.h>
#include <string.h>

/*
 * Reading a PNG row by row, for images too large to hold whole. libpng reports an error by
 * longjmp, which Swift cannot catch, so every libpng call that may fail is made here, under a
 * setjmp of its own; a failure returns 0 and leaves libpng's message in `message`. Nothing is
 * printed: warnings are dropped, errors are kept for Gloss to report.
 */
typedef struct {
    png_structp png;
    png_infop info;
    const unsigned char *data;
    size_t size;
    size_t offset;
    char message[200];
} gloss_png_rows;

static inline void gloss_png_rows_read(png_structp png, png_bytep out, size_t length) {
    gloss_png_rows *reader = (gloss_png_rows *)png_get_io_ptr(png);
    if (reader->size - reader->offset < length) png_error(png, "read beyond end of data");
    memcpy(out, reader->data + reader->offset, length);
    reader->offset += length;
}

static inline void gloss_png_rows_error(png_structp png, png_const_charp message) {
    gloss_png_rows *reader = (gloss_png_rows *)png_get_error_ptr(png);
    strncpy(reader->message, message, sizeof reader->message - 1);
    png_longjmp(png, 1);
}

static inline void gloss_png_rows_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/* Reads the header and asks for 8-bit grey or RGB, transparency composited on white. Gives
 * the size and the channels (1 or 3) of the rows to come. Interlaced images are refused unless
 * `whole` (they can only be read whole, with gloss_png_rows_image). */
static inline int gloss_png_rows_begin(gloss_png_rows *reader, int whole, png_uint_32 *width, png_uint_32 *height, int *channels) {
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, gloss_png_rows_error, gloss_png_rows_warning);
    if (!reader->png) return 0;
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) return 0;
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_set_read_fn(reader->png, reader, gloss_png_rows_read);
    png_read_info(reader->png, reader->info);
    if (whole) {
        png_set_interlace_handling(reader->png);
    } else if (png_get_interlace_type(reader->png, reader->info) != PNG_INTERLACE_NONE) {
        strncpy(reader->message, "interlaced, so it cannot be read row by row", sizeof reader->message - 1);
        return 0;
    }
    png_set_expand(reader->png);
    png_set_strip_16(reader->png);
    png_color_16 white = {0, 255, 255, 255, 255};
    png_set_background(reader->png, &white, PNG_BACKGROUND_GAMMA_SCREEN, 0, 1.0);
    png_read_update_info(reader->png, reader->info);
    *width = png_get_image_width(reader->png, reader->info);
    *height = png_get_image_height(reader->png, reader->info);
    *channels = png_get_channels(reader->png, reader->info);
    return 1;
}

static inline int gloss_png_rows_next(gloss_png_rows *reader, unsigned char *row) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_row(reader->png, row, NULL);
    return 1;
}

/* Reads every row (and every pass of an interlaced image) into `rows`. */
static inline int gloss_png_rows_image(gloss_png_rows *reader, unsigned char **rows) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_image(reader->png, rows);
    return 1;
}

static inline void gloss_png_rows_end(gloss_png_rows *reader) {
    png_destroy_read_struct(&reader->png, &reader->info, NULL);
}
#endif
