#!/usr/bin/python3
"""Writes the committed seed corpora of fuzz/seeds/ (run from anywhere; needs Pillow).

Seeds are small on purpose: a few fixtures of the repository, tiny generated images of every
format Gloss reads, and cascades cut down to a couple of stages from Debian's opencv-data.
"""
import io
import os
import shutil
import struct
import xml.etree.ElementTree as ET
import zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEEDS = os.path.join(HERE, "seeds")
OPENCV = "/usr/share/opencv4"


def write(target, name, data):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    with open(os.path.join(SEEDS, target, name), "wb") as f:
        f.write(data)


def copy(target, fixture, name=None):
    os.makedirs(os.path.join(SEEDS, target), exist_ok=True)
    shutil.copyfile(os.path.join(ROOT, fixture), os.path.join(SEEDS, target, name or os.path.basename(fixture)))


def tiny(mode="L", size=(12, 8)):
    image = Image.new(mode, size)
    for y in range(size[1]):
        for x in range(size[0]):
            v = (x * 20 + y * 7) % 256
            image.putpixel((x, y), v if mode in ("L", "1", "P") else (v, 255 - v, (v * 3) % 256)[: len(mode)])
    return image


def encode(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def exif_orientation(value, little=True):
    """A TIFF structure with one IFD holding Orientation (0x0112, SHORT) = value."""
    e = "<" if little else ">"
    head = (b"II" if little else b"MM") + struct.pack(e + "HI", 42, 8)
    ifd = struct.pack(e + "H", 1) + struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", value, 0) + struct.pack(e + "I", 0)
    return head + ifd


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def cut_cascade(path, stages, name):
    """The cascade with only its first `stages` stages and the features they use, renumbered."""
    tree = ET.parse(path)
    cascade = tree.getroot().find("cascade")
    stages_node = cascade.find("stages")
    kept = list(stages_node)[:stages]
    for s in list(stages_node)[stages:]:
        stages_node.remove(s)
    lbp = cascade.find("featureParams/maxCatCount").text.strip() != "0"
    step = 3 + (8 if lbp else 1)
    used = {}
    for s in kept:
        for w in s.find("weakClassifiers"):
            n = w.find("internalNodes")
            v = n.text.split()
            for k in range(0, len(v), step):
                old = int(v[k + 2])
                used.setdefault(old, len(used))
                v[k + 2] = str(used[old])
            n.text = " " + " ".join(v) + " "
    features = cascade.find("features")
    all_features = list(features)
    for f in all_features:
        features.remove(f)
    for old, _ in sorted(used.items(), key=lambda kv: kv[1]):
        features.append(all_features[old])
    cascade.find("stageNum").text = str(stages)
    write("cascade", name, b'<?xml version="1.0"?>\n' + ET.tostring(tree.getroot()))


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)

    # Image decoding: fixtures, then one tiny file per format and layout.
    for fixture in ["fixtures/text/upright.jpg", "fixtures/text/rotated.jpg", "fixtures/text/two-pages.tif",
                    "fixtures/formats/page.gif", "fixtures/formats/page.webp",
                    "fixtures/bad/empty.png", "fixtures/bad/not-an-image.png", "fixtures/bad/truncated.png",
                    "fixtures/pdf/text-layer.pdf", "fixtures/bad/zero-pages.pdf", "fixtures/bad/garbage.pdf",
                    "fixtures/bad/huge-page.pdf", "fixtures/bad/million-pages.pdf", "fixtures/bad/image-bomb.pdf",
                    "fixtures/bad/page-tree-loop.pdf", "fixtures/bad/deep-nesting.pdf", "fixtures/pdf/hebrew.pdf"]:
        copy("image", fixture)
    grey, rgb = tiny("L"), tiny("RGB")
    write("image", "tiny-grey.png", encode(grey, "PNG", dpi=(300, 300)))
    write("image", "tiny-rgba.png", encode(tiny("RGBA"), "PNG"))
    write("image", "tiny-palette.png", encode(rgb.convert("P"), "PNG"))
    write("image", "tiny-16bit.png", encode(grey.convert("I;16"), "PNG"))
    write("image", "tiny-bilevel.png", encode(grey.convert("1"), "PNG"))
    for orientation in (3, 6, 8):
        exif = b"Exif\x00\x00" + exif_orientation(orientation, little=orientation != 8)
        write("image", f"tiny-exif{orientation}.jpg", encode(rgb, "JPEG", quality=50, exif=exif))
    write("image", "tiny-grey.jpg", encode(grey, "JPEG", quality=50))
    write("image", "tiny-lzw.tif", encode(grey, "TIFF", compression="tiff_lzw"))
    write("image", "tiny-g4.tif", encode(grey.convert("1"), "TIFF", compression="group4"))
    write("image", "tiny-rgb.tif", encode(rgb, "TIFF"))
    write("image", "tiny-2pages.tif", encode(grey, "TIFF", save_all=True, append_images=[rgb.convert("L").rotate(90, expand=True)]))
    write("image", "tiny.gif", encode(rgb.convert("P"), "GIF"))
    write("image", "tiny.bmp", encode(rgb, "BMP"))
    write("image", "tiny-grey.bmp", encode(grey, "BMP"))
    write("image", "tiny.pgm", encode(grey, "PPM"))
    write("image", "tiny.ppm", encode(rgb, "PPM"))
    write("image", "tiny.webp", encode(rgb, "WEBP", quality=50))
    write("image", "tiny-lossless.webp", encode(rgb, "WEBP", lossless=True))
    write("image", "tiny-alpha.webp", encode(tiny("RGBA"), "WEBP", quality=50))

    # Issue 16: what a header cannot justify. A PNG of 1x1 followed by 64 KB (within the 64 MiB
    # allowed for metadata: the fuzzer grows it), a lossless WebP that claims 12000x12000 and
    # holds no pixels (libwebp would hold it whole, 576 MB), and a GIF whose second frame claims
    # 65535x65535 (giflib would decode every frame; Gloss hands it the first alone).
    one = encode(Image.new("L", (1, 1), 128), "PNG")
    write("image", "png-1x1-padded.png", one[:-12] + png_chunk(b"tEXt", b"padding\0" + b"x" * 65536) + one[-12:])
    bits = (12000 - 1) | (12000 - 1) << 14
    vp8l = b"\x2f" + struct.pack("<I", bits) + b"\0\0\0"
    write("image", "lossless-claims-12000.webp", b"RIFF" + struct.pack("<I", 12 + len(vp8l)) + b"WEBPVP8L" + struct.pack("<I", len(vp8l)) + vp8l)
    gif = encode(rgb.convert("P"), "GIF")
    huge_frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0) + b"\x08\x02\x00\x01\x00"
    write("image", "gif-second-frame-65535.gif", gif[:-1] + huge_frame + b"\x3b")

    # Issue 26: bad/many-operations.pdf's page of two million operations cut to 20000, which
    # draws within libFuzzer's 10 s: the fuzzer grows the content, gloss-render bounds it.
    content = zlib.compress(b"0 0 0 rg\n" + b"10 10 1 1 re f\n" * 20000, 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> /Contents 4 0 R >>",
               b"<< /Filter /FlateDecode /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"]
    body, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, text in enumerate(objects, start=1):
        offsets.append(len(body))
        body += b"%d 0 obj\n" % number + text + b"\nendobj\n"
    xref = len(body)
    body += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    body += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    write("image", "many-operations-20000.pdf", bytes(body))

    # Exif: JPEG headers with and without an Exif block, TIFF structures.
    copy("exif", "fixtures/text/rotated.jpg")
    copy("exif", "fixtures/text/two-pages.tif")
    for orientation in (1, 6, 8):
        exif = b"Exif\x00\x00" + exif_orientation(orientation, little=orientation != 8)
        jpeg = encode(rgb, "JPEG", quality=50, exif=exif)
        write("exif", f"exif{orientation}.jpg", jpeg)
    write("exif", "noexif.jpg", encode(grey, "JPEG", quality=50))
    write("exif", "ifd-le.tif", exif_orientation(6, little=True))
    write("exif", "ifd-be.tif", exif_orientation(3, little=False))
    write("exif", "tiny-2pages.tif", encode(grey, "TIFF", save_all=True, append_images=[grey]))

    # Cascades: Haar (stumps and trees, tilted features) and LBP, cut to two stages; one truncated.
    cut_cascade(f"{OPENCV}/haarcascades/haarcascade_frontalface_default.xml", 2, "haar-default-2stages.xml")
    cut_cascade(f"{OPENCV}/haarcascades/haarcascade_frontalface_alt2.xml", 2, "haar-alt2-trees-2stages.xml")
    cut_cascade(f"{OPENCV}/haarcascades/haarcascade_lefteye_2splits.xml", 1, "haar-lefteye-tilted-1stage.xml")
    cut_cascade(f"{OPENCV}/lbpcascades/lbpcascade_frontalface.xml", 2, "lbp-frontalface-2stages.xml")
    with open(f"{OPENCV}/haarcascades/haarcascade_smile.xml", "rb") as f:
        write("cascade", "haar-smile-truncated.xml", f.read(3000))
    with open(f"{OPENCV}/haarcascades/haarcascade_licence_plate_rus_16stages.xml", "rb") as f:
        write("cascade", "old-format-head.xml", f.read(1500))


if __name__ == "__main__":
    main()
