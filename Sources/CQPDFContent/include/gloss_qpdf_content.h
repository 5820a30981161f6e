#ifndef GLOSS_QPDF_CONTENT_H
#define GLOSS_QPDF_CONTENT_H
/* The two things Gloss needs of a PDF's content streams that libqpdf's C API does not offer:
   which pages show text, and a text layer grafted onto pages, their old invisible text removed.
   Both tokenise with libqpdf's own QPDFTokenizer (C++ only); nothing here parses PDF itself. */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of a page's text kinds. */
enum { GLOSS_QPDF_VISIBLE_TEXT = 1, GLOSS_QPDF_INVISIBLE_TEXT = 2 };

/* For each of the first `count` pages of the PDF at `path`, the kinds of text it shows, in its
   own content and in the form XObjects it draws: `kinds[i]` gets GLOSS_QPDF_VISIBLE_TEXT when
   a text operator shows text in a rendering mode that paints (0-2, 4-6), and
   GLOSS_QPDF_INVISIBLE_TEXT when one shows text in mode 3. Returns the document's page count,
   or -1 with a message in `error` (at most `error_size` bytes, terminated). */
int gloss_qpdf_page_text(char const* path, int* kinds, int count, char* error, size_t error_size);

/* Writes the PDF at `input` to `output` with, first, the text shown in rendering mode 3 removed
   from the pages `strip` lists (0-based) and from the form XObjects they draw; then page `i` of
   the PDF at `layer` drawn last on page `pages[i]`, as a form XObject placed by the six numbers
   of `matrices[6 i ...]` (a `cm` matrix from the layer page's space to the page's user space).
   The page's own content streams stay as they are, inside `q ... Q`; every other object, and the
   data of every stream not changed, is written as it was read. `layer` may be NULL when `count`
   is 0. Returns 0, or -1 with a message in `error`. */
int gloss_qpdf_graft(char const* input, char const* layer, int const* pages, double const* matrices, int count,
                     int const* strip, int strip_count, char const* output, char* error, size_t error_size);

// The graft made a PDF/A-2b file: `xmp` becomes the catalog's metadata stream, `profile` (ICC,
// `profile_size` bytes) the sRGB OutputIntent's, the information dictionary holds `title`,
// `producer` and `creator` (UTF-8) alone, and the trailer's /ID is derived from the content.
// With `xmp` NULL, the same as gloss_qpdf_graft.
int gloss_qpdf_graft_archive(char const* input, char const* layer, int const* pages, double const* matrices, int count,
                             int const* strip, int strip_count, char const* output, char const* xmp,
                             unsigned char const* profile, size_t profile_size, char const* const* info_keys,
                             char const* const* info_values, int info_count, char* error, size_t error_size);

// Why the document at `path` cannot become PDF/A-2b by adding metadata and an OutputIntent, in
// `reason`: 1 when there is a reason, 0 when it can, -1 when libqpdf cannot read it.
int gloss_qpdf_archive_refusal(char const* path, char* reason, size_t reason_size);

#ifdef __cplusplus
}
#endif
#endif
