#!/usr/bin/env python3
"""Times onnxruntime (one thread) on the PP-OCRv6 recogniser, on the input RecogniserBench
gives Gloss's engine, and runs that bench too when given, printing both.

Usage: bench_rec.py ONNX_DIR [--width 320] [--lines 8] [--runs 5] [--swift .build/release/RecogniserBench]

One line of 48 x WIDTH, then LINES lines of that width as one batch (how RapidOCR runs a
batch of lines padded to one width) and one after another; the median of RUNS runs each.
"""

import argparse
import os
import subprocess
import time

import numpy as np
import onnxruntime


def pattern(index, width):
    c, y, x = np.meshgrid(np.arange(3), np.arange(48), np.arange(width), indexing="ij")
    return (((c * 7 + y * 13 + x * 31 + index * 5) % 255) / 127.5 - 1).astype(np.float32)


CPU = []


def median_ms(body, runs):
    """The median wall milliseconds of `runs` runs; the median CPU milliseconds of the process
    (all its threads: on a shared machine the wall time counts others' turns) go to CPU."""
    times, cpu = [], []
    for _ in range(runs):
        begin, cpu_begin = time.perf_counter(), time.process_time()
        body()
        times.append((time.perf_counter() - begin) * 1000)
        cpu.append((time.process_time() - cpu_begin) * 1000)
    CPU.append(sorted(cpu)[len(cpu) // 2])
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models")
    parser.add_argument("--width", type=int, default=320)
    parser.add_argument("--lines", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--swift")
    args = parser.parse_args()
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(os.path.join(args.models, "PP-OCRv6_rec_small.onnx"), options)
    lines = [pattern(i, args.width)[None] for i in range(args.lines)]
    batch = np.concatenate(lines)
    session.run(None, {"x": lines[0]})
    one = median_ms(lambda: session.run(None, {"x": lines[0]}), args.runs)
    together = median_ms(lambda: session.run(None, {"x": batch}), args.runs)
    apart = median_ms(lambda: [session.run(None, {"x": line}) for line in lines], args.runs)
    print("onnxruntime %s, 1 thread: one line 48x%d %.1f ms; %d lines as a batch %.1f ms (%.1f ms a line), "
          "one after another %.1f ms" % (onnxruntime.__version__, args.width, one, args.lines, together,
                                         together / args.lines, apart))
    print("onnxruntime CPU time: one line %.1f ms; batch %.1f ms a line; one after another %.1f ms a line"
          % (CPU[0], CPU[1] / args.lines, CPU[2] / args.lines))
    if args.swift:
        subprocess.run([args.swift, str(args.width), str(args.lines), str(args.runs)], check=True)


if __name__ == "__main__":
    main()
