#!/usr/bin/env python3
"""A plain NumPy evaluator of a lowered program (convert.py), to check the lowering against
ONNX Runtime. Slow and simple on purpose: it is the definition, not an engine.

Usage: reference.py ppocr-X.bin IMAGE.npy MODEL.onnx  (a 1 x 3 x H x W float32 array: H and
W multiples of 32 for the detector, 48 x W (W a multiple of 8) for the recogniser, 48 x 192
for the classifier); prints the largest difference from onnxruntime on the same input.

Gloss's layout: a sequence of T tokens of F features is an F x 1 x T map; `linear` and
`layernorm` act on each pixel's channels; `softmax` too, and writes one row per pixel.
"""

import math
import struct
import sys

import numpy as np

_erf = np.frompyfunc(math.erf, 1, 1)


def erf(x):
    return _erf(x.astype(np.float64)).astype(np.float32)


def read(path):
    """(program lines, {name: float32 array}) from a GLOSSNN1 version 2 file."""
    data = open(path, "rb").read()
    assert data[:8] == b"GLOSSNN1"
    version, count = struct.unpack_from("<II", data, 8)
    assert version == 2
    offset = 16
    table = []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, offset)
        name = data[offset + 4:offset + 4 + n].decode()
        offset += 4 + n
        (rank,) = struct.unpack_from("<I", data, offset)
        shape = struct.unpack_from("<%dI" % rank, data, offset + 4)
        offset += 4 + 4 * rank
        elements, kind = struct.unpack_from("<II", data, offset)
        offset += 8
        table.append((name, shape, elements, kind))
    (length,) = struct.unpack_from("<I", data, offset)
    program = data[offset + 4:offset + 4 + length].decode().splitlines()
    offset += 4 + length
    tensors = {}
    for name, shape, elements, kind in table:
        offset += -offset % 16
        dtype, size = ("<f2", 2) if kind == 1 else ("<f4", 4)
        tensors[name] = np.frombuffer(data, dtype, elements, offset).astype(np.float32).reshape(shape)
        offset += elements * size
    assert offset == len(data)
    return program, tensors


def conv(x, w, b, stride, pad, group):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
    oh = (x.shape[2] - kh) // stride[0] + 1
    ow = (x.shape[3] - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    per = o // group
    for g in range(group):
        xs = x[:, g * ci:(g + 1) * ci]
        ws = w[g * per:(g + 1) * per].astype(np.float64)
        for ky in range(kh):
            for kx in range(kw):
                patch = xs[:, :, ky:ky + stride[0] * oh:stride[0], kx:kx + stride[1] * ow:stride[1]]
                out[:, g * per:(g + 1) * per] += np.einsum("nchw,oc->nohw", patch, ws[:, :, ky, kx])
    return (out + b.reshape(1, -1, 1, 1)).astype(np.float32)


def deconv(x, w, b, stride):
    # Kernel equal to the stride: every input pixel paints its own kh x kw block.
    n, c, h, wd = x.shape
    ci, o, kh, kw = w.shape
    assert (kh, kw) == tuple(stride)
    out = np.einsum("nchw,cokl->nohkwl", x.astype(np.float64), w.astype(np.float64)).reshape(n, o, h * kh, wd * kw)
    return (out + b.reshape(1, -1, 1, 1)).astype(np.float32)


def activate(x, act):
    if act == "none":
        return x
    if act == "relu":
        return np.maximum(x, 0)
    if act == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if act == "gelu":
        return 0.5 * x * (1 + erf(x / np.sqrt(2)))
    if act == "swish":
        return x / (1 + np.exp(-x))
    if act == "hardswish":
        return x * np.clip(x + 3, 0, 6) / 6
    if act.startswith("hardsigmoid("):
        alpha, beta = map(float, act[len("hardsigmoid("):-1].split(","))
        return np.clip(alpha * x + beta, 0, 1)
    raise SystemExit("activation " + act)


def run(program, tensors, image):
    values = {"input": image}
    for line in program:
        words = line.split()
        if words[0] == "output":
            return values[words[1]]
        out, op, args = words[0], words[2], words[3:]
        named = dict(a.split("=", 1) for a in args if "=" in a)
        plain = [a for a in args if "=" not in a]
        if op in ("conv", "deconv"):
            w, b = tensors[named["weight"]], tensors[named["bias"]]
            s = tuple(map(int, named["stride"].split("x")))
            if op == "conv":
                y = conv(values[plain[0]], w, b, s, list(map(int, named["pad"].split(","))), int(named["group"]))
            else:
                y = deconv(values[plain[0]], w, b, s)
            values[out] = activate(y, named["act"])
        elif op == "add":
            values[out] = values[plain[0]] + values[plain[1]]
        elif op == "mul":
            values[out] = values[plain[0]] * values[plain[1]]
        elif op == "mean":
            values[out] = values[plain[0]].mean(axis=(2, 3), keepdims=True)
        elif op == "concat":
            values[out] = np.concatenate([values[p] for p in plain], axis=1)
        elif op == "maxpool" and named["strides"] == "2,2":
            x = values[plain[0]]
            n, c, h, w = x.shape
            values[out] = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        elif op == "averagepool":
            x = values[plain[0]]
            (kh, kw), (sh, sw) = (tuple(map(int, named[k].split(","))) for k in ("kernel_shape", "strides"))
            assert (kh, kw) == (sh, sw)
            n, c, h, w = x.shape
            values[out] = x[:, :, :h // kh * kh, :w // kw * kw].reshape(n, c, h // kh, kh, w // kw, kw).mean(axis=(3, 5))
        elif op == "linear":
            w, b = tensors[named["weight"]], tensors[named["bias"]]
            y = np.einsum("nchw,oc->nohw", values[plain[0]].astype(np.float64), w.astype(np.float64))
            values[out] = activate((y + b.reshape(1, -1, 1, 1)).astype(np.float32), named["act"])
        elif op == "layernorm":
            x = values[plain[0]]
            centred = x - x.mean(axis=1, keepdims=True)
            normal = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + float(named["epsilon"]))
            values[out] = normal * tensors[named["gamma"]].reshape(1, -1, 1, 1) + tensors[named["beta"]].reshape(1, -1, 1, 1)
        elif op == "attention":
            x = values[plain[0]]
            n, c, h, w = x.shape
            heads = int(named["heads"])
            q, k, v = x.reshape(n, 3, heads, c // 3 // heads, h * w)[0]
            scores = np.einsum("hdi,hdj->hij", q * float(named["scale"]), k)
            p = np.exp(scores - scores.max(axis=2, keepdims=True))
            p /= p.sum(axis=2, keepdims=True)
            values[out] = np.einsum("hij,hdj->hdi", p, v).reshape(1, c // 3, h, w)
        elif op == "softmax":
            x = values[plain[0]]
            e = np.exp(x - x.max(axis=1, keepdims=True))
            n, c, h, w = x.shape
            values[out] = (e / e.sum(axis=1, keepdims=True)).reshape(n, c, h * w).transpose(0, 2, 1)[:, None]
        elif op == "maxpool":
            x = values[plain[0]]
            p = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)), constant_values=-np.inf)
            values[out] = np.maximum(np.maximum(p[:, :, :-1, :-1], p[:, :, 1:, :-1]),
                                     np.maximum(p[:, :, :-1, 1:], p[:, :, 1:, 1:]))
        elif op == "resize":
            f = int(float(plain[2].strip("[]").split(",")[-1]))
            values[out] = values[plain[0]].repeat(f, axis=2).repeat(f, axis=3)
        else:
            raise SystemExit("operation " + op)


def main():
    import onnxruntime
    program, tensors = read(sys.argv[1])
    image = np.load(sys.argv[2])
    mine = run(program, tensors, image)
    session = onnxruntime.InferenceSession(sys.argv[3])
    theirs = session.run(None, {"x": image})[0]
    if mine.shape != theirs.shape:
        # Rows of probabilities (1 x 1 x T x classes) against ONNX's N x T x classes or N x classes.
        mine = mine.reshape(theirs.shape)
    print("shape", mine.shape, "max |difference|", float(np.abs(mine - theirs).max()))


if __name__ == "__main__":
    main()
