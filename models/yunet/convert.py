#!/usr/bin/env python3
"""Convert libfacedetection's YuNet weights (src/facedetectcnn-data.cpp) to yunet.bin.

Usage: python3 convert.py PATH/TO/facedetectcnn-data.cpp [OUTPUT.bin]

The output defaults to yunet.bin next to this script. Standard library only.
The file format and the layout of every tensor are described in README.md.
"""

import hashlib
import os
import re
import struct
import sys

MAGIC = b"GLOSSNN1"
VERSION = 1

# Order in which the network evaluates its 53 convolutions, as indices into
# upstream's param_pConvInfo table (see README.md, "Network").
EXECUTION_ORDER = (
    list(range(0, 23))          # stem, backbone stages 0-5
    + [27, 28]                  # neck lateral 2 (stride 32)
    + [33, 34, 39, 40, 51, 52, 45, 46]  # stride-32 heads: cls, bbox, kps, obj
    + [25, 26]                  # neck lateral 1 (stride 16)
    + [31, 32, 37, 38, 49, 50, 43, 44]  # stride-16 heads
    + [23, 24]                  # neck lateral 0 (stride 8)
    + [29, 30, 35, 36, 47, 48, 41, 42]  # stride-8 heads
)

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


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    src_path = argv[1]
    out_path = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "yunet.bin")
    with open(src_path, "rb") as f:
        raw = f.read()
    arrays, entries = parse(raw.decode("utf-8"))
    if len(entries) != 53 or sorted(EXECUTION_ORDER) != list(range(53)):
        raise SystemExit("expected 53 convolutions")
    used = set()
    tensors = []
    for index in EXECUTION_ORDER:
        for t in tensors_for(index, entries[index], arrays):
            tensors.append(t)
            used.add(t[0])
    unused = set(arrays) - used
    if unused:
        raise SystemExit("arrays not referenced by the table: %s" % sorted(unused))

    header = bytearray(MAGIC)
    header += struct.pack("<II", VERSION, len(tensors))
    for name, dims, values in tensors:
        encoded = name.encode("utf-8")
        count = 1
        for d in dims:
            count *= d
        assert count == len(values)
        header += struct.pack("<I", len(encoded)) + encoded
        header += struct.pack("<I", len(dims))
        header += struct.pack("<%dI" % len(dims), *dims)
        header += struct.pack("<I", count)
    body = bytearray()
    for _, _, values in tensors:
        body += struct.pack("<%df" % len(values), *values)
    with open(out_path, "wb") as f:
        f.write(header)
        f.write(body)
    total = sum(len(v) for _, _, v in tensors)
    sys.stdout.write("source  %s sha256 %s\n" % (src_path, hashlib.sha256(raw).hexdigest()))
    sys.stdout.write("wrote   %s: %d tensors, %d floats, header %d bytes, %d bytes total, sha256 %s\n" % (
        out_path, len(tensors), total, len(header), len(header) + len(body),
        hashlib.sha256(bytes(header + body)).hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
