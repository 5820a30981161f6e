#!/usr/bin/env python3
"""Record onnxruntime's recogniser and classifier outputs on lines cut from the text
fixtures, as the goldens the Swift programs are checked against
(Tests/NeuralNetworkTests/Golden/README.md).

Usage: golden_rec.py ONNX_DIR [OUTPUT_DIR]  (default Tests/NeuralNetworkTests/Golden)

Each line is the box of its ink (rows whose darkest pixel is below 128, then the columns of
those rows) widened by 6 px, prepared as RapidOCR prepares a line: resized with OpenCV's
bilinear `cv2.resize` to height 48 keeping its ratio (width ceil(48 * ratio); the classifier
caps it at 192), each sample (v / 255 - 0.5) / 0.5 in B, G, R (equal: the fixtures are grey),
and padded on the right with 0 to the input width: the resized width rounded up to a multiple
of 8 for the recogniser, 192 for the classifier. All integers are u32 little-endian.

ppocr-rec-NAME.bin: height (48), resized width, input width W, time steps T, classes C, K (5),
F (full rows), then the resized line's grey bytes row by row, then per time step the top K
class ids (u32) and their probabilities (f32, best first), then F rows, each a time step (u32)
and its C probabilities as round(p * 65535) (u16), then the greedy CTC text (u32 length and
UTF-8).

ppocr-cls.bin: the count of lines, then per line its resized width, its grey bytes (48 rows),
the probabilities of 0 and 180 degrees (f32) and the orientation it was cut at (u32: 0 or
180).
"""

import hashlib
import math
import os
import struct
import sys

import cv2
import numpy as np
import onnxruntime

# (name, fixture, line number from the top counting from 0)
REC_LINES = [("sans", "sans", 0), ("serif", "serif", 2), ("mono", "mono", 1)]
# (fixture, line, turned by 180 degrees)
CLS_LINES = [("sans", 1, False), ("sans", 1, True), ("serif", 3, True)]
MARGIN = 6
TOP_K = 5


def lines_of(grey):
    """The ink boxes (top, bottom, left, right), inclusive, of the page's lines, top down."""
    ink = (grey < 128).sum(axis=1) > 0
    rows = np.flatnonzero(ink)
    runs = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
    boxes = []
    for run in runs:
        columns = np.flatnonzero((grey[run[0]:run[-1] + 1] < 128).sum(axis=0) > 0)
        boxes.append((run[0], run[-1], columns[0], columns[-1]))
    return boxes


def cut(fixture, line):
    grey = cv2.imread("fixtures/text/%s.png" % fixture, cv2.IMREAD_GRAYSCALE)
    top, bottom, left, right = lines_of(grey)[line]
    return grey[max(0, top - MARGIN):bottom + MARGIN + 1, max(0, left - MARGIN):right + MARGIN + 1]


def resized(crop, cap=None):
    """RapidOCR's resize of a line to height 48 (the width ceil(48 * ratio), at most `cap`)."""
    h, w = crop.shape
    width = int(math.ceil(48 * w / float(h)))
    if cap is not None and width > cap:
        width = cap
    # RapidOCR resizes the B, G, R image; the three planes are equal, so one is resized.
    return cv2.resize(cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR), (width, 48))[:, :, 0]


def tensor(line, width):
    x = np.zeros((1, 3, 48, width), np.float32)
    x[0, :, :, :line.shape[1]] = (line.astype(np.float32) / 255 - 0.5) / 0.5
    return x


def session(path):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(path, options)


def greedy(probabilities, characters):
    best = probabilities.argmax(axis=1)
    text, last = [], 0
    for c in best:
        if c != last and c != 0:
            text.append(" " if c == len(characters) + 1 else characters[c - 1])
        last = c
    return "".join(text)


def main():
    source = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "Tests/NeuralNetworkTests/Golden"
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "ppocr-rec.characters"), encoding="utf-8") as f:
        characters = f.read().split("\n")[:-1]
    rec = session(os.path.join(source, "PP-OCRv6_rec_small.onnx"))
    for name, fixture, number in REC_LINES:
        line = resized(cut(fixture, number))
        width = (line.shape[1] + 7) // 8 * 8
        p = rec.run(None, {"x": tensor(line, width)})[0][0]
        steps, classes = p.shape
        top = np.argsort(-p, axis=1, kind="stable")[:, :TOP_K]
        best = np.take_along_axis(p, top, axis=1)
        # Two full rows: the first step that is not a blank, and the least certain step.
        first = int(np.flatnonzero(top[:, 0] != 0)[0])
        doubtful = int(best[:, 0].argmin())
        full = sorted({first, doubtful})
        text = greedy(p, characters)
        data = struct.pack("<7I", 48, line.shape[1], width, steps, classes, TOP_K, len(full)) + line.tobytes()
        data += top.astype("<u4").tobytes() + best.astype("<f4").tobytes()
        for step in full:
            data += struct.pack("<I", step) + np.round(p[step].astype(np.float64) * 65535).astype("<u2").tobytes()
        encoded = text.encode()
        data += struct.pack("<I", len(encoded)) + encoded
        path = os.path.join(out, "ppocr-rec-%s.bin" % name)
        with open(path, "wb") as f:
            f.write(data)
        print("%s  %s (%d bytes): %d x %d, %d steps, full rows %s, %r" % (
            hashlib.sha256(data).hexdigest(), path, len(data), 48, width, steps, full, text))
    cls = session(os.path.join(source, "ch_ppocr_mobile_v2.0_cls_mobile.onnx"))
    data = struct.pack("<I", len(CLS_LINES))
    for fixture, number, turned in CLS_LINES:
        crop = cut(fixture, number)
        if turned:
            crop = cv2.rotate(crop, cv2.ROTATE_180)
        line = resized(crop, cap=192)
        p = cls.run(None, {"x": tensor(line, 192)})[0][0]
        data += struct.pack("<I", line.shape[1]) + line.tobytes() + p.astype("<f4").tobytes()
        data += struct.pack("<I", 180 if turned else 0)
        print("%s line %d%s: width %d, p(0) %.5f, p(180) %.5f" % (
            fixture, number, " turned" if turned else "", line.shape[1], p[0], p[1]))
    path = os.path.join(out, "ppocr-cls.bin")
    with open(path, "wb") as f:
        f.write(data)
    print("%s  %s (%d bytes)" % (hashlib.sha256(data).hexdigest(), path, len(data)))


if __name__ == "__main__":
    main()
