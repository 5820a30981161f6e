#!/usr/bin/env python3
"""Record onnxruntime's detector map on a crop of fixtures/text/sans.png, as the golden the
Swift detector is checked against (Tests/NeuralNetworkTests/Golden/README.md).

Usage: golden.py ONNX_DIR [OUTPUT]  (default Tests/NeuralNetworkTests/Golden/ppocr-det-sans.bin)

The crop is rows 64..159 and columns 48..303 of sans.png (96 x 256, a size the detector takes
as it is: multiples of 32), the start of its first line ("The quick"). The file holds: height
and width (u32 little-endian), the crop's grey bytes row by row, then the map, each value
round(p * 65535) as u16 little-endian (a step of 1.5e-5, far below the 1e-3 tolerance).
"""

import hashlib
import os
import struct
import sys

import cv2
import numpy as np
import onnxruntime

TOP, LEFT, HEIGHT, WIDTH = 64, 48, 96, 256


def main():
    source = sys.argv[1]
    output = sys.argv[2] if len(sys.argv) > 2 else "Tests/NeuralNetworkTests/Golden/ppocr-det-sans.bin"
    grey = cv2.imread("fixtures/text/sans.png", cv2.IMREAD_GRAYSCALE)[TOP:TOP + HEIGHT, LEFT:LEFT + WIDTH]
    # RapidOCR's preprocessing: B, G, R (all equal here), (v / 255 - 0.5) / 0.5.
    x = ((grey.astype(np.float32) / 255.0 - 0.5) / 0.5)[None, None].repeat(3, axis=1)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(os.path.join(source, "PP-OCRv6_det_small.onnx"), options)
    probability = session.run(None, {"x": x})[0][0, 0]
    quantised = np.round(probability.astype(np.float64) * 65535).astype("<u2")
    data = struct.pack("<II", HEIGHT, WIDTH) + grey.tobytes() + quantised.tobytes()
    with open(output, "wb") as f:
        f.write(data)
    print("%s  %s (%d bytes); map %.4f..%.4f, %d pixels above 0.3" % (
        hashlib.sha256(data).hexdigest(), output, len(data), probability.min(), probability.max(),
        int((probability > 0.3).sum())))


if __name__ == "__main__":
    main()
