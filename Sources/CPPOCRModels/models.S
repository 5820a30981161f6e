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

/* ppocr-rec.bin: 21081064 bytes, SHA-256 31ba85fc505781ac37820eb9a2236f2aa01baf09306601fed3e93278e5877f41 */
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

/* ppocr-cls.bin: 528136 bytes, SHA-256 342d98c7ab94aa531dedd54f67c6211e83c2c5f855bcb76b0848b5b3cd8a645d */
    .section .rodata.gloss_ppocr_cls,"a",@progbits
    .balign 16
    .globl gloss_ppocr_cls_start
gloss_ppocr_cls_start:
    .incbin "../../models/ppocr/ppocr-cls.bin"
    .globl gloss_ppocr_cls_end
gloss_ppocr_cls_end:
    .section .note.GNU-stack,"",@progbits
