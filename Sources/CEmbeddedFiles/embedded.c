#include "embedded_files.h"

/* C23's #embed reads each file as the initialiser of an array: clang takes a few milliseconds
 * for what SwiftPM's .embedInCode made a Swift array literal of (31 s for the templates' 124 KB
 * and 65 s for YuNet's 220 KB in a release build, on the critical path of every build). The
 * compiler lists each embedded file among the object's dependencies, so editing one rebuilds
 * this file. Paths are relative to this file. */

/* Written out one by one: #embed is a directive, and a directive cannot come out of a macro. */
_Alignas(16) static const unsigned char yunet_bytes[] = {
#embed "../../models/yunet/yunet.bin"
};
_Alignas(16) static const unsigned char page_html_bytes[] = {
#embed "../../templates/page.html"
};
_Alignas(16) static const unsigned char index_html_bytes[] = {
#embed "../../templates/index.html"
};
_Alignas(16) static const unsigned char gloss_css_bytes[] = {
#embed "../../templates/gloss.css"
};
_Alignas(16) static const unsigned char page_js_bytes[] = {
#embed "../../templates/page.js"
};
_Alignas(16) static const unsigned char index_js_bytes[] = {
#embed "../../templates/index.js"
};
_Alignas(16) static const unsigned char srgb_icc_bytes[] = {
#embed "../Reports/Profiles/sRGB.icc"
};

#define GLOSS_ACCESSOR(function, array)              \
    const unsigned char *function(size_t *count) {   \
        *count = sizeof(array);                      \
        return array;                                \
    }

GLOSS_ACCESSOR(gloss_embedded_yunet, yunet_bytes)
GLOSS_ACCESSOR(gloss_embedded_page_html, page_html_bytes)
GLOSS_ACCESSOR(gloss_embedded_index_html, index_html_bytes)
GLOSS_ACCESSOR(gloss_embedded_gloss_css, gloss_css_bytes)
GLOSS_ACCESSOR(gloss_embedded_page_js, page_js_bytes)
GLOSS_ACCESSOR(gloss_embedded_index_js, index_js_bytes)
GLOSS_ACCESSOR(gloss_embedded_srgb_icc, srgb_icc_bytes)
