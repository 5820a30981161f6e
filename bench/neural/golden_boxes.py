#!/usr/bin/env python3
"""Record the goldens of Tests/NeuralReadingTests: RapidOCR 3.10.0's detection on text fixtures.

For each page: RapidOCR's own preprocessing (resize within bounds, vertical padding, the
detector's resize), onnxruntime's probability map (one thread), RapidOCR's DBPostProcess,
sorted_boxes and map_boxes_to_original. Writes, under Tests/NeuralReadingTests/Golden/:

- NAME.map: the map, zlib-compressed: u32 height, u32 width (little-endian), then each
  probability as a byte, round(p * 255), probabilities under 0.05 written as 0. A byte keeps
  the text mask exact (p > 0.3 exactly when the byte is 77 or more) and each box's mean within
  0.004; the zeros, far below every threshold, make the map compress to a few tens of KB;
- detection.json: per page its size, RapidOCR's plan (bounded size, padding, detector input,
  ratios), its boxes (corners clockwise from the top left, in the page's pixels) and scores,
  and a crop of the detector input's bytes (after cv2.resize, B, G, R) to check the resize;
- plans.json: RapidOCR's plan for page sizes of every kind (no image needed);
- sans-line.crop: get_rotate_crop_image of sans.png's first box (zlib: u32 width, u32 height,
  then the grey bytes), for LineCrop.

Run from the repository root:
    .build/venv/bin/python bench/neural/golden_boxes.py
"""
import json
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import rapidocr
from rapidocr import RapidOCR
from rapidocr.utils.process_img import apply_vertical_padding, get_rotate_crop_image, map_boxes_to_original, resize_image_within_bounds

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "Tests/NeuralReadingTests/Golden"


def engine():
    return RapidOCR(params={"Global.log_level": "error", "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                            "EngineConfig.onnxruntime.inter_op_num_threads": 1})


def detect(ocr, img):
    """RapidOCR's detection, step by step, keeping the map and the plan."""
    det = ocr._load_det_model()
    pre, record = ocr.preprocess_img(img)
    padded, record = apply_vertical_padding(pre, record, ocr.width_height_ratio, ocr.min_height)
    pre_op = det.get_preprocess()
    resized = pre_op.resize(padded)
    tensor = pre_op(padded)
    preds = det.session(tensor)
    boxes, scores = det.postprocess_op(preds, padded.shape[:2])
    # sorted_boxes reorders the boxes only; keep each score with its box.
    order = []
    if len(boxes):
        sorted_ = det.sorted_boxes(boxes.copy())
        for b in sorted_:
            order.append(next(i for i in range(len(boxes)) if i not in order and np.array_equal(boxes[i], b)))
        boxes = map_boxes_to_original(sorted_.astype(np.float32), record, img.shape[0], img.shape[1])
    # The whole engine, detection only, must agree with the steps above.
    whole = det(padded)
    if len(boxes):
        check = map_boxes_to_original(whole.boxes.astype(np.float32), record, img.shape[0], img.shape[1])
        assert np.array_equal(check, boxes), "step-by-step detection differs from RapidOCR's"
    plan = {
        "page": [img.shape[1], img.shape[0]],
        "bounded": [pre.shape[1], pre.shape[0]],
        "padding": record["padding_1"]["top"],
        "input": [tensor.shape[3], tensor.shape[2]],
        "ratio": [record["preprocess"]["ratio_w"], record["preprocess"]["ratio_h"]],
    }
    return plan, preds[0, 0], resized, [b.tolist() for b in boxes], [float(scores[i]) for i in order]


def write_map(name, prob):
    q = np.round(np.clip(prob, 0, 1) * 255).astype(np.uint8)
    q[prob < 0.05] = 0
    assert np.array_equal(q >= 77, prob > 0.3), "the byte map's mask differs"
    header = np.array([prob.shape[0], prob.shape[1]], dtype="<u4").tobytes()
    data = zlib.compress(header + q.tobytes(), 9)
    (OUT / f"{name}.map").write_bytes(data)
    return len(data)


def plans(ocr):
    det = ocr._load_det_model()
    sizes = [(2480, 3508), (3508, 2480), (1700, 2200), (600, 3000), (5000, 200), (400, 20), (20, 400), (100, 100),
             (736, 736), (735, 1000), (4000, 25), (1241, 1754), (2000, 2001), (1001, 1999)]
    result = []
    for w, h in sizes:
        img = np.zeros((h, w, 3), np.uint8)
        try:
            pre, ratio_h, ratio_w = resize_image_within_bounds(img, ocr.min_side_len, ocr.max_side_len)
        except Exception:
            result.append({"page": [w, h], "input": None})
            continue
        record = {"preprocess": {"ratio_h": ratio_h, "ratio_w": ratio_w}}
        padded, record = apply_vertical_padding(pre, record, ocr.width_height_ratio, ocr.min_height)
        resized = det.get_preprocess().resize(padded)
        result.append({"page": [w, h], "bounded": [pre.shape[1], pre.shape[0]], "padding": record["padding_1"]["top"],
                       "input": None if resized is None else [resized.shape[1], resized.shape[0]],
                       "ratio": [ratio_w, ratio_h]})
    return result


def tilted(path, degrees):
    """A fixture turned by a few degrees about its centre, on white: lines at an angle."""
    img = cv2.cvtColor(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE), cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=(255, 255, 255))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    ocr = engine()
    pages = {}
    for name, source in [("few-words", "text/few-words.png"), ("sans", "text/sans.png"), ("serif", "text/serif.png"),
                         ("scan", "scans/page.png"), ("sans-tilted", None)]:
        img = tilted(ROOT / "fixtures/text/sans.png", 6) if source is None else ocr.load_img(str(ROOT / "fixtures" / source))
        plan, prob, resized, boxes, scores = detect(ocr, img)
        size = write_map(name, prob)
        y0, x0 = resized.shape[0] // 3, resized.shape[1] // 3
        crop = resized[y0:y0 + 32, x0:x0 + 48]
        pages[name] = {"fixture": source, "plan": plan, "boxes": boxes, "scores": scores,
                       "inputCrop": {"x": x0, "y": y0, "width": 48, "height": 32, "bgr": crop.tobytes().hex()}}
        print(f"{name}: page {plan['page']} input {plan['input']}, {len(boxes)} boxes, map {size} bytes")
    (OUT / "detection.json").write_text(json.dumps({"rapidocr": rapidocr.__version__ if hasattr(rapidocr, "__version__") else "3.10.0",
                                                    "pages": pages}, indent=1) + "\n")
    sans = ocr.load_img(str(ROOT / "fixtures/text/sans.png"))
    crop = get_rotate_crop_image(sans, np.array(pages["sans"]["boxes"][0], dtype=np.float32))
    header = np.array([crop.shape[1], crop.shape[0]], dtype="<u4").tobytes()
    (OUT / "sans-line.crop").write_bytes(zlib.compress(header + crop[:, :, 0].tobytes(), 9))
    (OUT / "plans.json").write_text(json.dumps(plans(ocr), indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
