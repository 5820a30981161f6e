#!/usr/bin/env python3
"""Read images with RapidOCR at its defaults on one ONNX Runtime thread; print JSON lines.

  rapid.py IMAGE ...     one JSON object per image on stdout:
                         {"image", "lines": [{"text", "score", "box": [x0, y0, x1, y1]}],
                          "det", "cls", "rec", "seconds", "version", "error"}
  rapid.py --bounded IMAGE OUT.png ...
                         writes the picture RapidOCR's stages read (the page as its loader
                         decodes it, resized within Global.min_side_len...max_side_len,
                         process_img.resize_image_within_bounds) to OUT.png; prints one JSON
                         object per image: {"image", "out", "width", "height", "ratio_w",
                         "ratio_h", "error"}, the ratios from that picture's pixels to the page's

The engine is made once and reused for every image, so model loading is not in the
per-page times. "det", "cls" and "rec" are RapidOCR's own elapsed seconds per stage
(RapidOCROutput.elapse_list); "seconds" is the wall time of the whole call (decoding, the
stages and the crops between them). Pages whose pixel layout RapidOCR's own loader misreads
(palette PNGs come out as their palette indices, CMYK JPEGs as RGBA) are decoded by Pillow to
RGB first, and handed over as an array; every other page goes by its path. Boxes are the axis-aligned hulls of RapidOCR's
quadrilaterals, in the image's pixels, origin top left.
"""
import json, sys, time

# intra_op = 1 puts each model on one thread; inter_op = 1 keeps ONNX Runtime from running
# independent nodes side by side on a second one.
ONE_THREAD = {
    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    "Global.log_level": "error",
}


# Pillow modes that RapidOCR's LoadImage turns into wrong pixels: it takes np.array(image) as
# grey, RGB or RGBA by its channel count, so palette indices become grey levels and CMYK's
# four channels an RGBA image (measured: 0 lines on the palette and CMYK pages of the bench).
MISREAD_MODES = frozenset({"P", "PA", "CMYK", "I", "I;16", "F"})


def misread(mode):
    """Whether RapidOCR's own loader misreads an image in this Pillow mode."""
    return mode in MISREAD_MODES


def source(image):
    """The path, or for a mode RapidOCR misreads the page as a BGR array (alpha over white)."""
    from PIL import Image, ImageOps
    with Image.open(image) as im:
        if not misread(im.mode):
            return image
        im = ImageOps.exif_transpose(im)
        if im.mode in ("PA", "P") and ("transparency" in im.info or im.mode == "PA"):
            im = im.convert("RGBA")
        if im.mode == "RGBA":
            white = Image.new("RGBA", im.size, (255, 255, 255, 255))
            im = Image.alpha_composite(white, im)
        import numpy as np
        return np.ascontiguousarray(np.asarray(im.convert("RGB"))[:, :, ::-1])


def engine():
    from rapidocr import RapidOCR
    return RapidOCR(params=ONE_THREAD)


def read(ocr, image):
    started = time.monotonic()
    result = ocr(source(image))
    seconds = time.monotonic() - started
    det, cls, rec = (list(result.elapse_list) + [None, None, None])[:3] if hasattr(result, "elapse_list") else (None, None, None)
    lines = []
    boxes = getattr(result, "boxes", None)
    txts = getattr(result, "txts", None) or ()
    scores = getattr(result, "scores", None) or ()
    if boxes is not None:
        for quad, text, score in zip(boxes, txts, scores):
            xs = [float(p[0]) for p in quad]
            ys = [float(p[1]) for p in quad]
            lines.append({"text": text, "score": float(score), "box": [min(xs), min(ys), max(xs), max(ys)]})
    return {"image": image, "lines": lines, "det": det or 0.0, "cls": cls or 0.0, "rec": rec or 0.0,
            "seconds": seconds, "error": None}


def bounded(ocr, image, out):
    """Writes the picture RapidOCR reads `image` as (decoded, resized within its bounds) to `out`."""
    import cv2
    picture, record = ocr.preprocess_img(ocr.load_img(source(image)))
    if not cv2.imwrite(out, picture):
        raise OSError(f"{out}: cv2.imwrite failed")
    ratios = record["preprocess"]
    return {"image": image, "out": out, "width": int(picture.shape[1]), "height": int(picture.shape[0]),
            "ratio_w": float(ratios["ratio_w"]), "ratio_h": float(ratios["ratio_h"]), "error": None}


def write_bounded(pairs):
    ocr = engine()  # the models load lazily: none is loaded for this
    for image, out in zip(pairs[0::2], pairs[1::2]):
        try:
            result = bounded(ocr, image, out)
        except Exception as error:
            result = {"image": image, "out": out, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(result), flush=True)


def main(argv):
    if argv[:1] == ["--bounded"]:
        return write_bounded(argv[1:])
    import rapidocr
    version = getattr(rapidocr, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version
        version = dist_version("rapidocr")
    ocr = engine()
    for image in argv:
        try:
            out = read(ocr, image)
        except Exception as error:  # one unreadable page must not end the run
            out = {"image": image, "lines": [], "det": 0.0, "cls": 0.0, "rec": 0.0, "seconds": 0.0,
                   "error": f"{type(error).__name__}: {error}"}
        out["version"] = version
        print(json.dumps(out, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
