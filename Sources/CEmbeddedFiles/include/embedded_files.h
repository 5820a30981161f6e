#ifndef GLOSS_EMBEDDED_FILES_H
#define GLOSS_EMBEDDED_FILES_H

#include <stddef.h>

/* Files of the repository compiled into the binary by embedded.c, so an installed gloss needs
 * nothing beside it. Each function returns the file's first byte (16-byte aligned) and sets
 * *count to its length; the bytes live as long as the process. */

/* models/yunet/yunet.bin: YuNet's weights and program (models/yunet/README.md). */
const unsigned char *gloss_embedded_yunet(size_t *count);

/* The report's templates, stylesheet and scripts (templates/), UTF-8. */
const unsigned char *gloss_embedded_page_html(size_t *count);
const unsigned char *gloss_embedded_index_html(size_t *count);
const unsigned char *gloss_embedded_gloss_css(size_t *count);
const unsigned char *gloss_embedded_page_js(size_t *count);
const unsigned char *gloss_embedded_index_js(size_t *count);

/* Sources/Reports/Profiles/sRGB.icc: PDF/A's OutputIntent profile (its README). */
const unsigned char *gloss_embedded_srgb_icc(size_t *count);

#endif
