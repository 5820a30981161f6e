/* The PP-OCRv6 models, assembled into the binary as they are (models/ppocr/README.md):
 * .incbin costs no compile time, where a Swift array literal of 30 MB would take minutes.
 * Written by models/ppocr/convert.py; the SHA-256 sums make this file change, and so be
 * rebuilt, whenever a model does (the assembler's dependency list omits .incbin files). */

/* ppocr-det.bin: 9833364 bytes, SHA-256 25572cd366fa00a3a233b23ca01b81a2ef443e7b934908c61e201d7e7664494d */
    .section .rodata.gloss_ppocr_det,"a",@progbits
    .balign 16
    .globl gloss_ppocr_det_start
gloss_ppocr_det_start:
    .incbin "../../models/ppocr/ppocr-det.bin"
    .globl gloss_ppocr_det_end
gloss_ppocr_det_end:

/* ppocr-rec.bin: 21079720 bytes, SHA-256 e84190147b5d74366348878f5729d0b09d1c498f6720c4ba335ff23c59b2ca81 */
    .section .rodata.gloss_ppocr_rec,"a",@progbits
    .balign 16
    .globl gloss_ppocr_rec_start
gloss_ppocr_rec_start:
    .incbin "../../models/ppocr/ppocr-rec.bin"
    .globl gloss_ppocr_rec_end
gloss_ppocr_rec_end:

/* ppocr-rec.characters: 74947 bytes, SHA-256 b5f2bfe2bdd9448429e3e82b51c789775d9b42f2403d082b00662eb77e401c5d */
    .section .rodata.gloss_ppocr_rec_chars,"a",@progbits
    .balign 16
    .globl gloss_ppocr_rec_chars_start
gloss_ppocr_rec_chars_start:
    .incbin "../../models/ppocr/ppocr-rec.characters"
    .globl gloss_ppocr_rec_chars_end
gloss_ppocr_rec_chars_end:

/* ppocr-cls.bin: 519832 bytes, SHA-256 10d9535d8c6c5f6df31750931b8f31acdb87faa6340ac3fb8572ae320a0c5d4f */
    .section .rodata.gloss_ppocr_cls,"a",@progbits
    .balign 16
    .globl gloss_ppocr_cls_start
gloss_ppocr_cls_start:
    .incbin "../../models/ppocr/ppocr-cls.bin"
    .globl gloss_ppocr_cls_end
gloss_ppocr_cls_end:
    .section .note.GNU-stack,"",@progbits
