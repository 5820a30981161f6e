#!/usr/bin/env python3
"""Does storing the weights as float16 change what PP-OCRv6 reads? Runs RapidOCR on the text
fixtures twice, with the wheel's graphs and with copies whose weights are rounded to float16
(and computed in float32, as Gloss would), one thread, and prints the largest difference of
the detector's probability map and every line whose text differs.

Usage: measure_fp16.py ONNX_DIR [IMAGE ...]   (default: fixtures/text/*.png, *.jpg)
"""

import glob
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import numpy_helper

FILES = ("PP-OCRv6_det_small.onnx", "PP-OCRv6_rec_small.onnx", "ch_ppocr_mobile_v2.0_cls_mobile.onnx")


def rounded(source, target):
    model = onnx.load(source)
    for tensor in model.graph.initializer:
        array = numpy_helper.to_array(tensor)
        if array.dtype == np.float32:
            tensor.CopyFrom(numpy_helper.from_array(array.astype(np.float16).astype(np.float32), tensor.name))
    for node in model.graph.node:
        if node.op_type == "Constant":
            array = numpy_helper.to_array(node.attribute[0].t)
            if array.dtype == np.float32 and array.size > 1:
                node.attribute[0].t.CopyFrom(numpy_helper.from_array(array.astype(np.float16).astype(np.float32)))
    onnx.save(model, target)


def session(path):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(path, options)


def engine(folder):
    from rapidocr import RapidOCR
    return RapidOCR(params={
        "Global.log_level": "error",
        "EngineConfig.onnxruntime.intra_op_num_threads": 1,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        "Det.model_path": os.path.join(folder, FILES[0]),
        "Rec.model_path": os.path.join(folder, FILES[1]),
        "Cls.model_path": os.path.join(folder, FILES[2]),
    })


def main():
    import cv2
    from rapidocr.ch_ppocr_det.utils import DetPreProcess
    source = sys.argv[1]
    images = sys.argv[2:] or sorted(glob.glob("fixtures/text/*.png") + glob.glob("fixtures/text/*.jpg"))
    half = os.path.join(".build", "ppocr-fp16")
    os.makedirs(half, exist_ok=True)
    for name in FILES:
        rounded(os.path.join(source, name), os.path.join(half, name))
    det32, det16 = session(os.path.join(source, FILES[0])), session(os.path.join(half, FILES[0]))
    ocr32, ocr16 = engine(source), engine(half)
    worst, lines, changed = 0.0, 0, 0
    for path in images:
        image = cv2.imread(path)
        x = DetPreProcess()(image)
        a, b = det32.run(None, {"x": x})[0], det16.run(None, {"x": x})[0]
        difference = float(np.abs(a - b).max())
        worst = max(worst, difference)
        r32, r16 = ocr32(image), ocr16(image)
        t32, t16 = list(r32.txts or ()), list(r16.txts or ())
        lines += len(t32)
        same = t32 == t16
        changed += 0 if same else sum(1 for p, q in zip(t32, t16) if p != q) + abs(len(t32) - len(t16))
        print("%-32s map %s: max |fp32 - fp16| %.2e; %d lines, %s" % (
            os.path.basename(path), "x".join(map(str, x.shape[2:])), difference, len(t32),
            "same text" if same else "TEXT DIFFERS"))
        if not same:
            for p, q in zip(t32, t16):
                if p != q:
                    print("    fp32 %r\n    fp16 %r" % (p, q))
    print("largest map difference %.2e; %d of %d lines differ" % (worst, changed, lines))


if __name__ == "__main__":
    main()
