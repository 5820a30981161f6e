#!/usr/bin/env python3
"""Times Gloss's detector (NeuralBench) and onnxruntime's (one thread) on random inputs of a size.

    bench/neural/engine.py [--repeats 3] [--onnx PATH] [--bench PATH] WIDTHxHEIGHT...

For each size the two engines run in turn, REPEATS rounds, so a machine shared with other work
slows both alike; it prints each engine's median seconds, its peak resident memory and the
ratio Swift / onnxruntime. Each run is a fresh process's first (its buffers are sized then);
the inputs are uniform in -1...1, as a page's samples are after `(v / 255 - 0.5) / 0.5`.
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys

import numpy as np


def default_onnx():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    found = glob.glob(os.path.join(root, ".build/venv/lib/python3*/site-packages/rapidocr/models/PP-OCRv6_det_small.onnx"))
    found += glob.glob(os.path.join(root, ".build/ppocr-onnx/PP-OCRv6_det_small.onnx"))
    return found[0] if found else None


def random_input(width, height):
    """A `1 x 3 x height x width` input, uniform in -1...1 (what a page's samples become)."""
    return np.random.default_rng(1).uniform(-1, 1, (1, 3, height, width)).astype(np.float32)


def run_onnxruntime(onnx, width, height):
    """One onnxruntime run in a child process (so its peak memory is its own): seconds, MB."""
    code = f"""
import sys, time, resource
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
import engine, onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = 1
options.inter_op_num_threads = 1
session = ort.InferenceSession({onnx!r}, options, providers=["CPUExecutionProvider"])
x = engine.random_input({width}, {height})
began = time.monotonic()
session.run(None, {{session.get_inputs()[0].name: x}})
elapsed = time.monotonic() - began
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def run_swift(bench, width, height):
    out = subprocess.run([bench, str(width), str(height), "1"], check=True, capture_output=True, text=True).stdout
    seconds = float(re.search(r"median ([0-9.]+) s", out).group(1))
    megabytes = float(re.search(r"peak RSS ([0-9]+) MB", out).group(1))
    return seconds, megabytes


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="+", help="WIDTHxHEIGHT, multiples of 32")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--onnx", default=default_onnx())
    parser.add_argument("--bench", default=os.path.join(root, ".build/release/NeuralBench"))
    args = parser.parse_args()
    if not args.onnx:
        sys.exit("no PP-OCRv6_det_small.onnx: pass --onnx")
    print(f"{'size':>11} {'Swift s':>8} {'ORT s':>8} {'ratio':>6} {'Swift MB':>9} {'ORT MB':>7}")
    for size in args.sizes:
        width, height = (int(v) for v in size.lower().split("x"))
        swift, ort = [], []
        for _ in range(args.repeats):
            swift.append(run_swift(args.bench, width, height))
            ort.append(run_onnxruntime(args.onnx, width, height))
        s = statistics.median(t for t, _ in swift)
        o = statistics.median(t for t, _ in ort)
        print(f"{size:>11} {s:8.2f} {o:8.2f} {s / o:6.2f} {max(m for _, m in swift):9.0f} {max(m for _, m in ort):7.0f}",
              flush=True)


if __name__ == "__main__":
    main()
