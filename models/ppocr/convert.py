#!/usr/bin/env python3
"""Convert RapidOCR's PP-OCRv6 ONNX graphs to Gloss's model format (GLOSSNN1, version 2).

Usage:
  convert.py [--wheel PATH.whl | --models DIR] [--out DIR] [--storage float32|float16]
  convert.py --print det|rec|cls [--wheel ... | --models ...]   (the lowered program only)

Without --wheel or --models it runs `pip download rapidocr==3.10.0 --no-deps` into
.build/ppocr-wheel and reads the three ONNX files from that wheel. Needs `onnx` and `numpy`
(the pinned versions `make setup` installs in .build/venv). README.md describes the output.

The graph is lowered to a short program of the layers Gloss evaluates: Identity nodes vanish,
a Conv's bias Add is taken into the convolution, a BatchNormalization after a Conv is folded
into its weights, and activations (Relu, HardSigmoid, Sigmoid, the Erf form of GELU, x*sigmoid
(x), the Add/Clip/Mul/Div form of hard-swish) that are a convolution's only consumer become an
attribute of it. `simplify` first folds the shape operations Gloss's layout makes no-ops (a
sequence of T tokens of F features is an F x 1 x T map) and fuses each spelled-out attention
into one `attention` line. What is left is written as one line per operation.
"""

import argparse
import hashlib
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import onnx
from onnx import numpy_helper

MAGIC = b"GLOSSNN1"
VERSION = 2
PACKAGE = "rapidocr==3.10.0"
FILES = {
    "det": "PP-OCRv6_det_small.onnx",
    "rec": "PP-OCRv6_rec_small.onnx",
    "cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}
STORAGE = {"float32": 0, "float16": 1}
ALIGN = 16


class Graph:
    """The ONNX graph with Identity resolved, constants as arrays, consumers counted."""

    def __init__(self, model):
        g = model.graph
        self.model = model
        self.constants = {i.name: numpy_helper.to_array(i).astype(np.float32)
                          if numpy_helper.to_array(i).dtype.kind == "f" else numpy_helper.to_array(i)
                          for i in g.initializer}
        self.alias = {}
        self.nodes = []
        for n in g.node:
            if n.op_type == "Identity":
                self.alias[n.output[0]] = n.input[0]
            elif n.op_type == "Constant":
                self.constants[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
            else:
                self.nodes.append(n)
        self.inputs = [i.name for i in g.input]
        self.index()
        simplify(self)
        self.index()

    def index(self):
        self.outputs = [self.name(o.name) for o in self.model.graph.output]
        self.producer = {}
        self.consumers = {}
        for n in self.nodes:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                self.consumers.setdefault(self.name(i), []).append(n)

    def name(self, value):
        while value in self.alias:
            value = self.alias[value]
        return value

    def ins(self, node):
        return [self.name(i) for i in node.input]

    def only_consumer(self, value):
        c = self.consumers.get(value, [])
        if len(c) == 1 and value not in self.outputs:
            return c[0]
        return None

    @staticmethod
    def attrs(node):
        return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def simplify(graph):
    """Rewrites, in place, what Gloss's layout makes vanish or one operation.

    Gloss holds a sequence of T tokens of F features as an F x 1 x T map (a map's pixels are
    its tokens), and an N x C matrix as C x 1 x 1; so the recogniser's Reshape/Transpose pairs
    between maps and sequences, the classifier's flatten and the Shape/Slice/Concat arithmetic
    that computes their shapes are no-ops, and disappear. A Reshape of constants becomes a
    constant, and the attention's reshapes, slices, scale, Q.K^T, softmax and .V become one
    `Attention` node. Each pattern is checked node by node; anything else stays as it is.
    """
    for node in list(graph.nodes):
        ins = graph.ins(node)
        if node.op_type == "Reshape" and all(i in graph.constants for i in ins):
            data, shape = graph.constants[ins[0]], [int(d) for d in graph.constants[ins[1]]]
            shape = [data.shape[k] if d == 0 else d for k, d in enumerate(shape)]
            graph.constants[graph.name(node.output[0])] = data.reshape(shape)
            graph.nodes.remove(node)
    graph.index()
    while fuse_attention(graph):
        graph.index()
    for node in list(graph.nodes):
        if node not in graph.nodes:
            continue
        source = layout_no_op(graph, node)
        if source is not None:
            first, last = source
            graph.alias[graph.name(last.output[0])] = graph.ins(first)[0]
            graph.nodes.remove(first)
            if last is not first:
                graph.nodes.remove(last)
            graph.index()
    # The shape arithmetic left without a use.
    while True:
        dead = [n for n in graph.nodes
                if all(graph.name(o) not in graph.consumers and graph.name(o) not in graph.outputs for o in n.output)]
        if not dead:
            break
        for n in dead:
            graph.nodes.remove(n)
        graph.index()


def perm(node):
    return list(Graph.attrs(node).get("perm", []))


def shape_source(graph, value):
    """The node that computes a Reshape's target shape, or None when it is a constant."""
    return graph.producer.get(graph.name(value))


def layout_no_op(graph, node):
    """(first, last) when the nodes first..last only move values Gloss already holds in
    place: map -> sequence (Reshape to N x C x HW, Transpose 0,2,1), sequence -> map (Reshape
    to N x 1 x T x C, Transpose 0,3,1,2), a map of one row to a sequence (Squeeze axis 2,
    Transpose 0,2,1) and a C x 1 x 1 map to N x C (the classifier's flatten before its
    MatMul)."""
    ins = graph.ins(node)
    if node.op_type == "Squeeze" and Graph.attrs(node).get("axes") == [2]:
        after = graph.only_consumer(graph.name(node.output[0]))
        if after is not None and after.op_type == "Transpose" and perm(after) == [0, 2, 1]:
            return node, after
        return None
    if node.op_type != "Reshape" or ins[1] in graph.constants:
        return None
    target = shape_source(graph, ins[1])
    after = graph.only_consumer(graph.name(node.output[0]))
    if target is None or target.op_type != "Concat" or after is None:
        return None
    parts = graph.ins(target)
    if after.op_type == "Transpose" and perm(after) == [0, 2, 1] and len(parts) == 2:
        # Shape(x)[0:2] followed by -1: N x C x (H*W).
        first = shape_source(graph, parts[0])
        if graph.constants.get(parts[1]) is not None and list(graph.constants[parts[1]]) == [-1] \
                and first is not None and first.op_type == "Slice":
            starts, ends = (list(graph.constants[x]) for x in graph.ins(first)[1:3])
            shape = shape_source(graph, graph.ins(first)[0])
            if starts == [0] and ends == [2] and shape is not None and shape.op_type == "Shape" \
                    and graph.ins(shape)[0] == ins[0]:
                return node, after
    if after.op_type == "Transpose" and perm(after) == [0, 3, 1, 2] and len(parts) == 4:
        # N x 1 x T x C: one row of T pixels.
        one = graph.constants.get(parts[1])
        if one is not None and list(one) == [1]:
            return node, after
    if after.op_type == "MatMul" and len(parts) == 2:
        pooled = graph.producer.get(ins[0])
        if pooled is not None and pooled.op_type == "GlobalAveragePool":
            return node, node
    return None


def fuse_attention(graph):
    """Finds one multi-head self-attention spelled out in ONNX and replaces it by an
    `Attention` node (heads, scale) reading the Q, K, V projection; True when it did."""
    for reshape in graph.nodes:
        ins = graph.ins(reshape)
        shape = graph.constants.get(ins[1]) if reshape.op_type == "Reshape" else None
        if shape is None or shape.size != 5 or list(shape[:3]) != [0, -1, 3]:
            continue
        heads, size = int(shape[3]), int(shape[4])

        def only(value, op, order=None):
            node = graph.only_consumer(graph.name(value))
            assert node is not None and node.op_type == op, "attention: %s after %s" % (op, value)
            if order is not None:
                assert perm(node) == order, "attention: %s order %s" % (op, perm(node))
            return node

        spread = only(reshape.output[0], "Transpose", [2, 0, 3, 1, 4])
        parts = {}
        chain = [reshape, spread]
        for piece in graph.consumers[graph.name(spread.output[0])]:
            assert piece.op_type == "Slice"
            starts, ends, axes = (list(graph.constants[x]) for x in graph.ins(piece)[1:4])
            assert axes == [0] and ends[0] == starts[0] + 1
            squeeze = only(piece.output[0], "Squeeze")
            parts[int(starts[0])] = graph.name(squeeze.output[0])
            chain += [piece, squeeze]
        assert sorted(parts) == [0, 1, 2]
        scaled = only(parts[0], "Mul")
        scale = scalar(graph, graph.ins(scaled)[1])
        assert scale is not None
        query = scaled
        shift = graph.only_consumer(graph.name(scaled.output[0]))
        if shift is not None and shift.op_type == "Add" and scalar(graph, graph.ins(shift)[1]) == 0.0:
            query = shift
            chain.append(shift)
        keys = only(parts[1], "Transpose", [0, 1, 3, 2])
        scores = only(keys.output[0], "MatMul")
        assert graph.ins(scores) == [graph.name(query.output[0]), graph.name(keys.output[0])]
        weights = only(scores.output[0], "Softmax")
        assert Graph.attrs(weights).get("axis") in (3, -1)
        mixed = only(weights.output[0], "MatMul")
        assert graph.ins(mixed) == [graph.name(weights.output[0]), parts[2]]
        back = only(mixed.output[0], "Transpose", [0, 2, 1, 3])
        merge = only(back.output[0], "Reshape")
        assert list(graph.constants[graph.ins(merge)[1]]) == [0, -1, heads * size]
        chain += [scaled, keys, scores, weights, mixed, back, merge]
        fused = onnx.helper.make_node("Attention", [ins[0]], [merge.output[0]], heads=heads, scale=scale)
        graph.nodes.insert(graph.nodes.index(reshape), fused)
        for n in chain:
            graph.nodes.remove(n)
        return True
    return False


def scalar(graph, value):
    if value in graph.constants and graph.constants[value].size == 1:
        return float(graph.constants[value].reshape(-1)[0])
    return None


def lower(model, prefix):
    """Returns (program lines, tensors {name: float32 array}) for one graph."""
    graph = Graph(model)
    lines = []
    tensors = {}
    names = {graph.inputs[0]: "input"}
    done = set()
    counter = [0]

    def ref(value):
        value = graph.name(value)
        if value not in names:
            counter[0] += 1
            names[value] = "t%d" % counter[0]
        return names[value]

    def tensor(label, array):
        key = "%s.%s" % (prefix, label)
        tensors[key] = np.ascontiguousarray(array, dtype=np.float32)
        return key

    def take_activation(value):
        """The activation that is `value`'s only use, as (text, output value, nodes)."""
        users = graph.consumers.get(value, [])
        if value in graph.outputs:
            return None
        if len(users) == 1:
            node = users[0]
            if node.op_type == "Relu":
                return "relu", node.output[0], [node]
            if node.op_type == "HardSigmoid":
                a = Graph.attrs(node)
                return "hardsigmoid(%r,%r)" % (a.get("alpha", 0.2), a.get("beta", 0.5)), node.output[0], [node]
            if node.op_type == "Sigmoid":
                return "sigmoid", node.output[0], [node]
            return None
        if len(users) == 2:
            # x * sigmoid(x): swish.
            sig = [u for u in users if u.op_type == "Sigmoid"]
            mul = [u for u in users if u.op_type == "Mul"]
            if sig and mul and graph.name(sig[0].output[0]) in graph.ins(mul[0]) \
                    and len(graph.consumers.get(graph.name(sig[0].output[0]), [])) == 1:
                return "swish", mul[0].output[0], [sig[0], mul[0]]
            return hard_swish_at(value) or gelu_at(value)
        return None

    def hard_swish_at(value):
        """x -> Add 3 -> Clip 0, 6 -> Mul x -> Div 6: x * relu6(x + 3) / 6."""
        users = graph.consumers.get(value, [])
        add = [u for u in users if u.op_type == "Add"]
        if len(add) != 1 or scalar(graph, graph.ins(add[0])[1]) != 3.0:
            return None
        clip = graph.only_consumer(graph.name(add[0].output[0]))
        if clip is None or clip.op_type != "Clip" or [scalar(graph, i) for i in graph.ins(clip)[1:]] != [0.0, 6.0]:
            return None
        mul = graph.only_consumer(graph.name(clip.output[0]))
        if mul is None or mul.op_type != "Mul" or sorted(graph.ins(mul)) != sorted([value, graph.name(clip.output[0])]):
            return None
        div = graph.only_consumer(graph.name(mul.output[0]))
        if div is None or div.op_type != "Div" or scalar(graph, graph.ins(div)[1]) != 6.0:
            return None
        return "hardswish", div.output[0], [add[0], clip, mul, div]

    def gelu_at(value):
        """x -> Div(x, sqrt 2) -> Erf -> Add 1 -> Mul x -> Mul 0.5 (the exact GELU)."""
        users = graph.consumers.get(value, [])
        div = [u for u in users if u.op_type == "Div"]
        if len(users) != 2 or len(div) != 1:
            return None
        div = div[0]
        c = scalar(graph, graph.ins(div)[1])
        erf = graph.only_consumer(graph.name(div.output[0]))
        if c is None or abs(c - 2 ** 0.5) > 1e-6 or erf is None or erf.op_type != "Erf":
            return None
        add = graph.only_consumer(graph.name(erf.output[0]))
        if add is None or add.op_type != "Add" or scalar(graph, graph.ins(add)[1]) != 1.0:
            return None
        mul = graph.only_consumer(graph.name(add.output[0]))
        if mul is None or mul.op_type != "Mul" or value not in graph.ins(mul):
            return None
        half = graph.only_consumer(graph.name(mul.output[0]))
        if half is None or half.op_type != "Mul" or scalar(graph, graph.ins(half)[1]) != 0.5:
            return None
        return "gelu", half.output[0], [div, erf, add, mul, half]

    def layer_norm_at(mean):
        """From the first ReduceMean: Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma,
        Add beta over the last axis."""
        x = graph.ins(mean)[0]
        sub = graph.only_consumer(graph.name(mean.output[0]))
        if sub is None or sub.op_type != "Sub" or graph.ins(sub)[0] != x:
            return None
        centred = graph.name(sub.output[0])
        cu = graph.consumers.get(centred, [])
        pow_ = [u for u in cu if u.op_type == "Pow"]
        div = [u for u in cu if u.op_type == "Div"]
        if len(cu) != 2 or not pow_ or not div or scalar(graph, graph.ins(pow_[0])[1]) != 2.0:
            return None
        mean2 = graph.only_consumer(graph.name(pow_[0].output[0]))
        add = graph.only_consumer(graph.name(mean2.output[0]))
        eps = scalar(graph, graph.ins(add)[1])
        sqrt = graph.only_consumer(graph.name(add.output[0]))
        mul = graph.only_consumer(graph.name(div[0].output[0]))
        beta = graph.only_consumer(graph.name(mul.output[0]))
        if sqrt.op_type != "Sqrt" or mul.op_type != "Mul" or beta.op_type != "Add":
            return None
        chain = [mean, sub, pow_[0], mean2, add, sqrt, div[0], mul, beta]
        gamma = graph.constants[graph.ins(mul)[1]]
        bias = graph.constants[graph.ins(beta)[1]]
        return eps, gamma, bias, beta.output[0], chain

    for node in graph.nodes:
        if id(node) in done:
            continue
        op = node.op_type
        ins = graph.ins(node)
        a = Graph.attrs(node)
        if op in ("Conv", "ConvTranspose"):
            w = graph.constants[ins[1]]
            b = graph.constants[ins[2]] if len(ins) > 2 else np.zeros(w.shape[0 if op == "Conv" else 1], np.float32)
            out = node.output[0]
            nxt = graph.only_consumer(graph.name(out))
            if nxt is not None and nxt.op_type == "Add" and graph.ins(nxt)[1] in graph.constants:
                b = b + graph.constants[graph.ins(nxt)[1]].reshape(-1)
                out = nxt.output[0]
                done.add(id(nxt))
                nxt = graph.only_consumer(graph.name(out))
            if nxt is not None and nxt.op_type == "BatchNormalization" and op == "Conv":
                scale, shift, mean, var = (graph.constants[x] for x in graph.ins(nxt)[1:5])
                k = scale / np.sqrt(var + Graph.attrs(nxt).get("epsilon", 1e-5))
                w = w * k.reshape(-1, 1, 1, 1)
                b = (b - mean) * k + shift
                out = nxt.output[0]
                done.add(id(nxt))
            act = take_activation(graph.name(out))
            if act is not None:
                text, out, used = act
                done.update(id(u) for u in used)
            else:
                text = "none"
            layer = ref(out).replace("t", "L", 1)
            wn = tensor(layer + ".weight", w)
            bn = tensor(layer + ".bias", b)
            k = a["kernel_shape"]
            s = a.get("strides", [1, 1])
            if a.get("auto_pad", b"NOTSET") == b"SAME_UPPER":
                # Total padding k - 1 per axis (stride 1), the odd one at the end.
                pads = [(k[0] - 1) // 2, (k[1] - 1) // 2, k[0] - 1 - (k[0] - 1) // 2, k[1] - 1 - (k[1] - 1) // 2]
            else:
                pads = list(a.get("pads", [0, 0, 0, 0]))
            assert a.get("dilations", [1, 1]) == [1, 1]
            kind = "conv" if op == "Conv" else "deconv"
            lines.append("%s = %s %s weight=%s bias=%s kernel=%dx%d stride=%dx%d pad=%s group=%d act=%s" % (
                ref(out), kind, ref(ins[0]), wn, bn, k[0], k[1], s[0], s[1], ",".join(map(str, pads)),
                a.get("group", 1), text))
            continue
        if op == "BatchNormalization":
            scale, shift, mean, var = (graph.constants[x] for x in ins[1:5])
            k = scale / np.sqrt(var + a.get("epsilon", 1e-5))
            layer = ref(node.output[0]).replace("t", "L", 1)
            lines.append("%s = affine %s scale=%s shift=%s" % (
                ref(node.output[0]), ref(ins[0]), tensor(layer + ".scale", k), tensor(layer + ".shift", shift - mean * k)))
            continue
        if op == "ReduceMean":
            ln = layer_norm_at(node)
            if ln is not None:
                eps, gamma, beta, out, chain = ln
                done.update(id(u) for u in chain)
                layer = ref(out).replace("t", "L", 1)
                lines.append("%s = layernorm %s gamma=%s beta=%s epsilon=%r" % (
                    ref(out), ref(ins[0]), tensor(layer + ".gamma", gamma), tensor(layer + ".beta", beta), eps))
                continue
            lines.append("%s = mean %s axes=%s" % (ref(node.output[0]), ref(ins[0]), ",".join(map(str, a["axes"]))))
            continue
        if op == "GlobalAveragePool":
            lines.append("%s = mean %s axes=2,3" % (ref(node.output[0]), ref(ins[0])))
            continue
        if op == "MatMul" and ins[1] in graph.constants:
            w = graph.constants[ins[1]]
            out = node.output[0]
            b = np.zeros(w.shape[1], np.float32)
            nxt = graph.only_consumer(graph.name(out))
            if nxt is not None and nxt.op_type == "Add" and graph.ins(nxt)[1] in graph.constants:
                b = graph.constants[graph.ins(nxt)[1]].reshape(-1)
                out = nxt.output[0]
                done.add(id(nxt))
            act = take_activation(graph.name(out))
            text = "none"
            if act is not None:
                text, out, used = act
                done.update(id(u) for u in used)
            layer = ref(out).replace("t", "L", 1)
            # Stored [out][in], as a 1x1 convolution's weights are.
            lines.append("%s = linear %s weight=%s bias=%s act=%s" % (
                ref(out), ref(ins[0]), tensor(layer + ".weight", w.T), tensor(layer + ".bias", b), text))
            continue
        if op == "Attention":
            lines.append("%s = attention %s heads=%d scale=%r" % (
                ref(node.output[0]), ref(ins[0]), a["heads"], a["scale"]))
            continue
        if op == "Softmax":
            # Over the last axis, the features: Gloss's channels.
            lines.append("%s = softmax %s" % (ref(node.output[0]), ref(ins[0])))
            continue
        # Everything else, one line each, constants inline when small.
        args = []
        for i in ins:
            if i in graph.constants:
                c = graph.constants[i]
                if c.size <= 8:
                    args.append("[" + ",".join(repr(float(v)) if c.dtype.kind == "f" else str(int(v)) for v in c.reshape(-1)) + "]")
                else:
                    layer = ref(node.output[0]).replace("t", "L", 1)
                    args.append(tensor(layer + ".constant", c))
            else:
                args.append(ref(i))
        attr = " ".join("%s=%s" % (k, ",".join(map(str, v)) if isinstance(v, list) else
                                   (v.decode() if isinstance(v, bytes) else v)) for k, v in sorted(a.items()))
        lines.append(("%s = %s %s %s" % (",".join(ref(o) for o in node.output), op.lower(), " ".join(args), attr)).rstrip())
    lines.append("output %s" % ",".join(ref(o) for o in graph.outputs))
    return lines, tensors


def character_list(model):
    for p in model.metadata_props:
        if p.key == "character":
            return p.value
    return None


def write(path, program, tensors, storage):
    kind = STORAGE[storage]
    table = bytearray()
    for name, array in tensors.items():
        encoded = name.encode()
        table += struct.pack("<I", len(encoded)) + encoded
        shape = array.shape if array.ndim else (1,)
        table += struct.pack("<I", len(shape)) + b"".join(struct.pack("<I", d) for d in shape)
        table += struct.pack("<II", array.size, kind)
    text = "\n".join(program).encode() + b"\n"
    head = MAGIC + struct.pack("<II", VERSION, len(tensors)) + bytes(table) + struct.pack("<I", len(text)) + text
    out = bytearray(head)
    for array in tensors.values():
        out += b"\0" * (-len(out) % ALIGN)
        values = array.astype("<f2" if kind == 1 else "<f4").reshape(-1)
        if kind == 1 and not np.all(np.isfinite(values)):
            raise SystemExit("a weight overflows float16")
        out += values.tobytes()
    with open(path + ".tmp", "wb") as f:
        f.write(out)
    os.replace(path + ".tmp", path)
    return hashlib.sha256(out).hexdigest(), len(out)


def locate(args):
    if args.models:
        return {k: os.path.join(args.models, v) for k, v in FILES.items()}, None
    wheel = args.wheel
    if wheel is None:
        folder = os.path.join(".build", "ppocr-wheel")
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", folder, PACKAGE], check=True)
        wheel = os.path.join(folder, "rapidocr-3.10.0-py3-none-any.whl")
    folder = os.path.join(".build", "ppocr-onnx")
    os.makedirs(folder, exist_ok=True)
    with zipfile.ZipFile(wheel) as z:
        for v in FILES.values():
            with z.open("rapidocr/models/" + v) as src, open(os.path.join(folder, v), "wb") as dst:
                dst.write(src.read())
    return {k: os.path.join(folder, v) for k, v in FILES.items()}, wheel


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


ASSEMBLY = """\
/* The PP-OCRv6 models, assembled into the binary as they are (models/ppocr/README.md):
 * .incbin costs no compile time, where a Swift array literal of 30 MB would take minutes.
 * Written by models/ppocr/convert.py; the SHA-256 sums make this file change, and so be
 * rebuilt, whenever a model does (the assembler's dependency list omits .incbin files). */
%s
    .section .note.GNU-stack,"",@progbits
"""

BLOB = """
/* %(file)s: %(size)d bytes, SHA-256 %(digest)s */
    .section .rodata.gloss_ppocr_%(symbol)s,"a",@progbits
    .balign 16
    .globl gloss_ppocr_%(symbol)s_start
gloss_ppocr_%(symbol)s_start:
    .incbin "../../models/ppocr/%(file)s"
    .globl gloss_ppocr_%(symbol)s_end
gloss_ppocr_%(symbol)s_end:"""


def blob(file, symbol, digest, size):
    """One file's block of models.S, symbols `gloss_ppocr_SYMBOL_start` and `_end`."""
    return BLOB % {"file": file, "size": size, "digest": digest, "symbol": symbol}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel")
    parser.add_argument("--models")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--storage", default="float32", choices=sorted(STORAGE))
    parser.add_argument("--print", choices=sorted(FILES))
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--assembly", default=os.path.join(here, "..", "..", "Sources", "CPPOCRModels", "models.S"),
                        help="the assembly file that embeds the models ('' for none)")
    args = parser.parse_args()
    paths, wheel = locate(args)
    if wheel:
        print("%s  %s" % (sha(wheel), wheel))
    blobs = []
    for key, path in paths.items():
        if args.print and key != args.print:
            continue
        model = onnx.load(path)
        program, tensors = lower(model, key)
        if args.print:
            print("\n".join(program))
            continue
        chars = character_list(model)
        characters = None
        if chars is not None:
            characters = os.path.join(args.out, "ppocr-%s.characters" % key)
            with open(characters, "w", encoding="utf-8") as f:
                f.write(chars if chars.endswith("\n") else chars + "\n")
        digest, size = write(os.path.join(args.out, "ppocr-%s.bin" % key), program, tensors, args.storage)
        print("%s  %s (%d bytes, %d tensors, %d values, %d lines)" % (
            sha(path), os.path.basename(path), os.path.getsize(path), len(tensors),
            sum(t.size for t in tensors.values()), len(program)))
        print("%s  ppocr-%s.bin (%d bytes)" % (digest, key, size))
        blobs.append(blob("ppocr-%s.bin" % key, key, digest, size))
        # The recogniser's dictionary goes into the binary too: the classes mean nothing without it.
        if characters is not None:
            blobs.append(blob(os.path.basename(characters), key + "_chars", sha(characters), os.path.getsize(characters)))
    if blobs and args.assembly:
        with open(args.assembly + ".tmp", "w") as f:
            f.write(ASSEMBLY % "\n".join(blobs))
        os.replace(args.assembly + ".tmp", args.assembly)


if __name__ == "__main__":
    main()
