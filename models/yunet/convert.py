#!/usr/bin/env python3
"""Convert libfacedetection's YuNet weights (src/facedetectcnn-data.cpp) to yunet.bin.

Usage: python3 convert.py PATH/TO/facedetectcnn-data.cpp [OUTPUT.bin] [--print]

Writes YuNet as a program in Gloss's GLOSSNN1 version 2 format, the one the PP-OCRv6 models use
(models/ppocr/README.md): the layers one a line, each convolution's weights and bias as
tensors named after its line. The output defaults to yunet.bin next to this script; --print
also prints the program. Standard library only. README.md describes the program and every
tensor's layout.
"""

import argparse
import hashlib
import os
import re
import struct
import sys

MAGIC = b"GLOSSNN1"
VERSION = 2
ALIGN = 16

# The four heads of a level in the order their channels are stacked in one convolution:
# (upstream kind, channels). The level's output channels are cls 0, obj 1, bbox 2-5, kps 6-15.
HEADS = (("cls", 1), ("obj", 1), ("bbox", 4), ("kps", 10))
# The backbone's units after model0: (model, in, middle, out).
UNITS = ((1, 16, 16, 32), (2, 32, 32, 64), (3, 64, 64, 64), (4, 64, 64, 64), (5, 64, 64, 64))

ARRAY_RE = re.compile(
    r"float\s+(\w+)\s*\[([0-9*\s]+)\]\s*=\s*\{([^}]*)\}\s*;", re.S)
TABLE_RE = re.compile(
    r"ConvInfoStruct\s+param_pConvInfo\s*\[\s*(\d+)\s*\]\s*=\s*\{(.*?)\}\s*;", re.S)
ENTRY_RE = re.compile(
    r"\{\s*(\d+)\s*,\s*(\d+)\s*,\s*(true|false)\s*,\s*(true|false)\s*,"
    r"\s*(true|false)\s*,\s*(\w+)\s*,\s*(\w+)\s*\}")
FLOAT_RE = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?$")


def parse_float(text):
    text = text.strip()
    if not FLOAT_RE.match(text):
        raise ValueError("not a float literal: %r" % text)
    if text[-1] in "fF":
        text = text[:-1]
    # Round to float32 exactly as a C compiler does for a float literal
    # (the literal is first read as a double; every literal here has few
    # enough digits that double rounding cannot differ).
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def parse(source):
    arrays = {}
    for m in ARRAY_RE.finditer(source):
        name, dims, body = m.group(1), m.group(2), m.group(3)
        count = 1
        for d in dims.split("*"):
            count *= int(d)
        values = [parse_float(v) for v in body.split(",") if v.strip()]
        if len(values) != count:
            raise SystemExit("%s: declared %d values, found %d" % (name, count, len(values)))
        arrays[name] = values
    t = TABLE_RE.search(source)
    if not t:
        raise SystemExit("param_pConvInfo table not found")
    entries = []
    for e in ENTRY_RE.finditer(t.group(2)):
        entries.append({
            "in": int(e.group(1)), "out": int(e.group(2)),
            "depthwise": e.group(3) == "true", "pointwise": e.group(4) == "true",
            "weight": e.group(6), "bias": e.group(7),
        })
    if len(entries) != int(t.group(1)):
        raise SystemExit("table declares %s entries, parsed %d" % (t.group(1), len(entries)))
    return arrays, entries


def tensors_for(index, entry, arrays):
    """Yield (name, dims, values) for one table entry, in a plain unpadded layout."""
    w = arrays[entry["weight"]]
    b = arrays[entry["bias"]]
    cin, cout = entry["in"], entry["out"]
    if len(b) != cout:
        raise SystemExit("%s: %d biases for %d outputs" % (entry["bias"], len(b), cout))
    if index == 0:
        # The stem: a 3x3 stride-2 convolution over the 3-channel image, stored
        # upstream as a 1x1 convolution over 32 im2col channels, channel
        # (ky*3 + kx)*3 + c for tap (ky, kx) and image channel c; 27..31 are zero.
        if not (entry["pointwise"] and not entry["depthwise"] and cin == 32):
            raise SystemExit("unexpected stem entry %r" % entry)
        out = []
        for o in range(cout):
            row = w[o * 32:(o + 1) * 32]
            if any(v != 0.0 for v in row[27:]):
                raise SystemExit("stem padding channels are not zero")
            for c in range(3):
                for ky in range(3):
                    for kx in range(3):
                        out.append(row[(ky * 3 + kx) * 3 + c])
        yield entry["weight"], [cout, 3, 3, 3], out
    elif entry["pointwise"] and not entry["depthwise"]:
        # Upstream: [out][in], row-major. Kept as is.
        if len(w) != cout * cin:
            raise SystemExit("%s: size mismatch" % entry["weight"])
        yield entry["weight"], [cout, cin], list(w)
    elif entry["depthwise"] and not entry["pointwise"]:
        # Upstream (as its loader reads it): [tap][channel], tap = ky*3 + kx.
        # Written as [channel][ky][kx].
        if cin != cout or len(w) != 9 * cout:
            raise SystemExit("%s: size mismatch" % entry["weight"])
        out = []
        for c in range(cout):
            for tap in range(9):
                out.append(w[tap * cout + c])
        yield entry["weight"], [cout, 3, 3], out
    else:
        raise SystemExit("entry %d is neither pointwise nor depthwise" % index)
    yield entry["bias"], [cout], list(b)


class Program:
    """The lines of the program and the tensors they name, in order."""

    def __init__(self, convolutions):
        self.convolutions = convolutions  # upstream weight name -> (weight, bias), plain layouts
        self.used = set()
        self.lines = []
        self.tensors = []  # (name, shape, values)

    def take(self, name):
        if name in self.used:
            raise SystemExit("%s used twice" % name)
        self.used.add(name)
        return self.convolutions[name]

    def line(self, text):
        self.lines.append("t%d = %s" % (len(self.lines) + 1, text))
        return "t%d" % len(self.lines)

    def conv(self, source, weight, shape, bias, kernel, stride, group, act):
        number = len(self.lines) + 1
        names = ("yunet.L%d.weight" % number, "yunet.L%d.bias" % number)
        self.tensors.append((names[0], shape, weight))
        self.tensors.append((names[1], [shape[0]], bias))
        pad = kernel // 2
        return self.line("conv %s weight=%s bias=%s kernel=%dx%d stride=%dx%d pad=%d,%d,%d,%d group=%d act=%s" % (
            source, names[0], names[1], kernel, kernel, stride, stride, pad, pad, pad, pad, group, act))

    def separable(self, source, names, act):
        """DP: a 1x1 convolution (no activation), then a 3x3 depthwise one, then `act`."""
        pointwise = [self.take(name + "_pw_weight") for name in names]
        depthwise = [self.take(name + "_dw_weight") for name in names]
        inputs = len(pointwise[0][0]) // len(pointwise[0][1])
        weight = [v for w, _ in pointwise for v in w]
        bias = [v for _, b in pointwise for v in b]
        outputs = len(bias)
        middle = self.conv(source, weight, [outputs, inputs, 1, 1], bias, 1, 1, 1, "none")
        weight = [v for w, _ in depthwise for v in w]
        bias = [v for _, b in depthwise for v in b]
        return self.conv(middle, weight, [outputs, 1, 3, 3], bias, 3, 1, outputs, act)

    def maxpool(self, source):
        return self.line("maxpool %s kernel_shape=2,2 strides=2,2 pads=0,0,0,0 ceil_mode=0" % source)

    def enlarged(self, source, factor):
        return self.line("resize %s [] [1.0,1.0,%.1f,%.1f] coordinate_transformation_mode=asymmetric mode=nearest "
                         "nearest_mode=floor" % (source, factor, factor))

    def heads(self, source, level):
        return self.separable(source, ["bbox_head__multi_level_%s__%d" % (kind, level) for kind, _ in HEADS], "none")


def lowered(arrays, entries):
    """The program of README.md's "Network" section and its tensors."""
    convolutions = {}
    for index, entry in enumerate(entries):
        (wname, wshape, w), (_, _, b) = tensors_for(index, entry, arrays)
        convolutions[wname] = (w, b)
    for kind, channels in HEADS:
        for level in range(3):
            if len(convolutions["bbox_head__multi_level_%s__%d_pw_weight" % (kind, level)][1]) != channels:
                raise SystemExit("head %s at level %d: not %d channels" % (kind, level, channels))
    p = Program(convolutions)
    stem_w, stem_b = p.take("backbone__model0_pw_weight")
    x = p.conv("input", stem_w, [16, 3, 3, 3], stem_b, 3, 2, 1, "relu")
    x = p.maxpool(p.separable(x, ["backbone__model0_dp"], "relu"))
    levels = []
    for model, _, _, _ in UNITS:
        if model >= 3:
            x = p.maxpool(x)
        x = p.separable(x, ["backbone__model%d_dp1" % model], "relu")
        x = p.separable(x, ["backbone__model%d_dp2" % model], "relu")
        if model >= 3:
            levels.append(x)
    heads = [None, None, None]
    neck = p.separable(levels[2], ["neck__lateral_convs__2"], "relu")
    heads[2] = p.heads(neck, 2)
    for level in (1, 0):
        # up2(coarser neck) + this level's backbone map: adjacent lines, fused by Network.
        total = p.line("add %s %s" % (levels[level], p.enlarged(neck, 2)))
        neck = p.separable(total, ["neck__lateral_convs__%d" % level], "relu")
        heads[level] = p.heads(neck, level)
    # One output: the stride-16 and stride-32 heads enlarged to the stride-8 map, each cell's
    # values repeated over the cells it covers; 48 channels, 16 a level.
    p.line("concat %s %s %s axis=1" % (heads[0], p.enlarged(heads[1], 2), p.enlarged(heads[2], 4)))
    p.lines.append("output t%d" % len(p.lines))
    unused = set(convolutions) - p.used
    if unused:
        raise SystemExit("convolutions not in the program: %s" % sorted(unused))
    return p.lines, p.tensors


def encoded(lines, tensors):
    table = bytearray()
    for name, shape, values in tensors:
        count = 1
        for d in shape:
            count *= d
        assert count == len(values), name
        text = name.encode("utf-8")
        table += struct.pack("<I", len(text)) + text
        table += struct.pack("<I", len(shape)) + struct.pack("<%dI" % len(shape), *shape)
        table += struct.pack("<II", count, 0)  # float32
    program = ("\n".join(lines) + "\n").encode("utf-8")
    out = bytearray(MAGIC + struct.pack("<II", VERSION, len(tensors)) + table + struct.pack("<I", len(program)) + program)
    for _, _, values in tensors:
        out += b"\0" * (-len(out) % ALIGN)
        out += struct.pack("<%df" % len(values), *values)
    return bytes(out)


def main(argv):
    parser = argparse.ArgumentParser(description="Convert YuNet's weights to yunet.bin (README.md).")
    parser.add_argument("source", help="libfacedetection's src/facedetectcnn-data.cpp")
    parser.add_argument("output", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "yunet.bin"))
    parser.add_argument("--print", action="store_true", help="print the program")
    args = parser.parse_args(argv[1:])
    with open(args.source, "rb") as f:
        raw = f.read()
    arrays, entries = parse(raw.decode("utf-8"))
    if len(entries) != 53:
        raise SystemExit("expected 53 convolutions")
    used = {name for entry in entries for name in (entry["weight"], entry["bias"])}
    unused = set(arrays) - used
    if unused:
        raise SystemExit("arrays not referenced by the table: %s" % sorted(unused))
    lines, tensors = lowered(arrays, entries)
    data = encoded(lines, tensors)
    with open(args.output + ".tmp", "wb") as f:
        f.write(data)
    os.replace(args.output + ".tmp", args.output)
    if args.print:
        sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.write("source  %s sha256 %s\n" % (args.source, hashlib.sha256(raw).hexdigest()))
    sys.stdout.write("wrote   %s: %d program lines, %d tensors, %d floats, %d bytes, sha256 %s\n" % (
        args.output, len(lines), len(tensors), sum(len(v) for _, _, v in tensors), len(data),
        hashlib.sha256(data).hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
