"""Measures Gloss's word boxes (Sources/NeuralReading/WordBoxes.swift) on the rendered text
fixtures, with RapidOCR's own lines, crops and recogniser (onnxruntime, one thread) standing
in for Gloss's networks: each word's box against the renderer's truth (fixtures/text/*.json).

    .build/venv/bin/python models/ppocr/measure_word_boxes.py fixtures/text/sans.png ...

Prints, per fixture, the words matched by text and the largest edge error in pixels, and
the errors of Gloss's boxes (half an advance around the characters' centres, drawn in to the
ink) against the bare step spans [8 first, 8 (last + 1)) over the line's height. Words are
matched to the truth by text (the nearer of two alike).
"""
import json
import math
import sys

import cv2
import numpy as np
from rapidocr import RapidOCR
from rapidocr.utils.process_img import get_rotate_crop_image


def decode(probabilities, count):
    """Greedy CTC: (class, probability, first step, last step) per character."""
    best = probabilities.argmax(axis=1)
    chars, previous = [], -1
    for t, c in enumerate(best):
        if c == previous:
            if c != 0 and chars:
                chars[-1][3] = t
        elif c != 0:
            chars.append([int(c), float(probabilities[t, c]), t, t])
        previous = c
    space = count + 1
    words, current = [], []
    for ch in chars:
        if ch[0] == space:
            if current:
                words.append(current)
            current = []
        else:
            current.append(ch)
    if current:
        words.append(current)
    return chars, words


def centre(ch):
    return ((ch[2] + ch[3]) / 2 + 0.5) * 8


def extents(chars, words, resized, margin):
    span, gaps = 0.0, 0
    for w in words:
        if len(w) > 1:
            span += centre(w[-1]) - centre(w[0])
            gaps += len(w) - 1
    advance = span / gaps if gaps else resized / max(1, len(chars))
    out = []
    for w in words:
        if margin:
            left, right = centre(w[0]) - advance / 2, centre(w[-1]) + advance / 2
        else:
            left, right = 8 * w[0][2], 8 * (w[-1][3] + 1)
        out.append((min(max(0, left), resized), min(max(0, right), resized)))
    return out


def main(paths):
    engine = RapidOCR(params={"EngineConfig.onnxruntime.intra_op_num_threads": 1})
    engine._load_det_model()
    engine._load_rec_model()
    rec = engine.text_rec
    characters = rec.postprocess_op.character  # blank, the characters, space
    count = len(characters) - 2
    for path in paths:
        truth = json.load(open(path.rsplit(".", 1)[0] + ".json"))
        image = cv2.imread(path)
        boxes = engine.text_det(image).boxes
        results = {True: [], False: []}
        crops = [get_rotate_crop_image(image, np.array(b, dtype=np.float32).copy()) for b in boxes]
        ratios = [c.shape[1] / c.shape[0] for c in crops]
        order = np.argsort(ratios)
        for start in range(0, len(crops), 6):
            chunk = order[start:start + 6]
            max_ratio = max([320 / 48] + [ratios[i] for i in chunk])
            width = int(48 * max_ratio)
            batch = np.concatenate([rec.resize_norm_img(crops[i], max_ratio)[None] for i in chunk]).astype(np.float32)
            preds = rec.session(batch)
            for row, i in enumerate(chunk):
                resized = min(width, math.ceil(48 * ratios[i]))
                chars, words = decode(preds[row], count)
                box = np.array(boxes[i])
                h, w = crops[i].shape[:2]
                grey = cv2.cvtColor(crops[i], cv2.COLOR_BGR2GRAY)
                level, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
                ink = grey <= level
                for margin in (True, False):
                    spans = extents(chars, words, resized, margin)
                    advance = None
                    for k, (word, (left, right)) in enumerate(zip(words, spans)):
                        text = "".join(characters[c[0]] for c in word)
                        u0, u1 = left / resized, right / resized
                        v0, v1 = 0.0, 1.0
                        if margin:
                            # Gloss's rule: drawn in to the ink a quarter advance around the
                            # extent, never past half way to the neighbours.
                            gaps = sum(len(x) - 1 for x in words if len(x) > 1)
                            adv = (sum(centre(x[-1]) - centre(x[0]) for x in words if len(x) > 1) / gaps) if gaps else resized / max(1, len(chars))
                            slack = adv / 4 / resized
                            before = (spans[k - 1][1] / resized + u0) / 2 if k > 0 else 0
                            after = (u1 + spans[k + 1][0] / resized) / 2 if k + 1 < len(spans) else 1
                            a, b = max(before, u0 - slack), min(after, u1 + slack)
                            cols = ink[:, max(0, int(math.floor(a * w))):min(w, int(math.ceil(b * w)))]
                            ys, xs = np.nonzero(cols)
                            if len(xs):
                                base = max(0, int(math.floor(a * w)))
                                u0, u1 = (base + xs.min()) / w, (base + xs.max() + 1) / w
                                v0, v1 = ys.min() / h, (ys.max() + 1) / h
                        tl, tr, br, bl = box
                        # The crop's corners back onto the page by the perspective transform
                        # that cut it out (Gloss's QuadMapping), not by interpolating edges.
                        square = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
                        back = cv2.getPerspectiveTransform(square, np.array(box, dtype=np.float32))
                        corners = np.array([[[u * w, v * h] for u in (u0, u1) for v in (v0, v1)]], dtype=np.float32)
                        pts = cv2.perspectiveTransform(corners, back)[0]
                        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                        results[margin].append((text, min(xs), min(ys), max(xs), max(ys)))
        for margin in (True, False):
            errors, matched, remaining = [], 0, list(truth["words"])
            for text, x0, y0, x1, y1 in results[margin]:
                # The same text twice on a page: the nearer drawn word.
                same = [t for t in remaining if t["text"] == text]
                if not same:
                    continue
                found = min(same, key=lambda t: abs(t["box"]["x"] - x0) + abs(t["box"]["y"] - y0))
                remaining.remove(found)
                b = found["box"]
                matched += 1
                errors.append(max(abs(x0 - b["x"]), abs(x1 - b["x"] - b["width"]), abs(y0 - b["y"]), abs(y1 - b["y"] - b["height"])))
                hx = [abs(x0 - b["x"]), abs(x1 - b["x"] - b["width"])]
                errors[-1] = (errors[-1], max(hx))
                if margin and max(hx) > 3 and "--why" in sys.argv:
                    print("  %s: %.0f..%.0f drawn %d..%d" % (text, x0, x1, b["x"], b["x"] + b["width"]))
            within_all = sum(1 for e in errors if e[0] <= 3)
            worst = max(e[0] for e in errors) if errors else 0
            worst_x = max(e[1] for e in errors) if errors else 0
            within = sum(1 for e in errors if e[1] <= 3)
            print("%s %s: %d of %d words matched; all edges within 3 px: %d, horizontal: %d; worst horizontal %.1f px, worst edge %.1f px; median horizontal %.1f" % (
                path, "Gloss (advance margin, ink)" if margin else "bare steps, line height", matched, len(truth["words"]), within_all, within, worst_x, worst,
                float(np.median([e[1] for e in errors])) if errors else 0))


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a != "--why"])
