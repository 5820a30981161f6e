#include "ppocr_models.h"

/* Symbols of models.S. Swift cannot import arrays of unknown size, so these functions hand
 * out their address and length. */
extern const unsigned char gloss_ppocr_det_start[], gloss_ppocr_det_end[];
extern const unsigned char gloss_ppocr_rec_start[], gloss_ppocr_rec_end[];
extern const unsigned char gloss_ppocr_cls_start[], gloss_ppocr_cls_end[];
extern const unsigned char gloss_ppocr_rec_chars_start[], gloss_ppocr_rec_chars_end[];

const unsigned char *gloss_ppocr_detector(size_t *count) {
    *count = (size_t)(gloss_ppocr_det_end - gloss_ppocr_det_start);
    return gloss_ppocr_det_start;
}

const unsigned char *gloss_ppocr_recogniser(size_t *count) {
    *count = (size_t)(gloss_ppocr_rec_end - gloss_ppocr_rec_start);
    return gloss_ppocr_rec_start;
}

const unsigned char *gloss_ppocr_classifier(size_t *count) {
    *count = (size_t)(gloss_ppocr_cls_end - gloss_ppocr_cls_start);
    return gloss_ppocr_cls_start;
}

const unsigned char *gloss_ppocr_characters(size_t *count) {
    *count = (size_t)(gloss_ppocr_rec_chars_end - gloss_ppocr_rec_chars_start);
    return gloss_ppocr_rec_chars_start;
}
