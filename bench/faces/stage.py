#!/usr/bin/python3
"""What the face stage of a photo batch costs, against the detector alone and upstream's C++.

Usage:
  bench/faces/stage.py --gloss .build/release/gloss --yunet .build/release/YuNetBench
                       [--reference PATH] --data DIR [--repeat N] [--cpu 0] [--limit N] [-- GLOSS-ARGS...]

Runs `gloss annotate --no-text --jobs 1 --format json` on one core (taskset) over the photos
with faces in DIR/annotations.json, reads each page's stage timings from its JSON (the least of --rounds batches) (`faces`, the
whole stage; `face-network` and `face-smiles`, its parts), and times, on the same core, Gloss's
YuNet alone (YuNetBench, warm: its first run untimed; the least of --repeat runs) and upstream's C++ (bench/faces/
yunet-reference) on the same photos reduced to 640 px. Prints per photo and the medians over the
photos, the batch's first page excluded (it builds the engine and sizes the buffers).
Arguments after `--` go to `gloss annotate` (`--face-size 960` and the like).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from yunet import resized


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", required=True)
    parser.add_argument("--yunet", required=True, help="YuNetBench")
    parser.add_argument("--reference", default=os.path.join(os.environ.get("YUNET_REFERENCE_BUILD", "/tmp/yunet-reference"), "reference"))
    parser.add_argument("--data", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3, help="batches run; each photo's least stage time is kept")
    parser.add_argument("--cpu", default="0")
    parser.add_argument("--limit", type=int, default=0, help="only the first N photos")
    parser.add_argument("--json")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    listed = json.load(open(os.path.join(args.data, "annotations.json")))
    photos = [a for a in listed if a.get("role") == "faces" and a["faces"] and os.path.exists(os.path.join(args.data, a["image"]))]
    if args.limit:
        photos = photos[:args.limit]
    core = ["taskset", "-c", args.cpu]
    with tempfile.TemporaryDirectory() as folder:
        inputs = [os.path.join(args.data, a["image"]) for a in photos]
        # Each round a batch of its own; per photo and part the least time of the rounds, as
        # the least of the repeats below: on a shared machine the least is the least disturbed.
        rounds = []
        for round in range(args.rounds):
            out = os.path.join(folder, "out%d" % round)
            run = subprocess.run(core + [args.gloss, "annotate"] + inputs + ["-o", out, "--no-text", "--jobs", "1", "--format", "json", "-q"]
                                 + extra, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit("gloss annotate failed: " + run.stderr)
            manifest = json.load(open(os.path.join(out, "gloss.json")))
            rounds.append([json.load(open(os.path.join(out, page["outputs"]["json"]))) for page in manifest["pages"]])
        stages = []
        for reports in zip(*rounds):
            names = {name for report in reports for name in report["timings"]}
            timings = {name: min(report["timings"].get(name, 0.0) for report in reports) for name in names}
            stages.append((timings, len(reports[0]["faces"])))
        rows = []
        for index, (entry, (timings, faces)) in enumerate(zip(photos, stages)):
            stem, _ = resized(os.path.join(args.data, entry["image"]), 640, folder)
            mine = json.loads(subprocess.run(core + [args.yunet, "--repeat", str(args.repeat), stem + ".png"], check=True,
                                             capture_output=True, text=True).stdout)
            theirs = None
            if os.path.exists(args.reference):
                theirs = json.loads(subprocess.run(core + [args.reference, "--runs", str(args.repeat), stem + ".ppm"], check=True,
                                                   capture_output=True, text=True).stdout)["time_ms"]["runs"]
                theirs = min(theirs)
            rows.append({"image": entry["image"], "faces": faces, "stage": timings.get("faces"),
                         "network": timings.get("face-network"), "smiles": timings.get("face-smiles", 0.0),
                         "second": timings.get("face-second-look", 0.0),
                         "yunet": min(mine["ms"]), "upstream": theirs, "first": index == 0})
    print("%-44s %5s %8s %8s %8s %8s %8s %8s %7s" % ("photo (times in ms, one core)", "faces", "stage", "network", "smiles",
                                                      "2nd look", "YuNet", "C++", "stage/C++"))
    for row in rows:
        print("%-44s %5d %8.1f %8.1f %8.1f %8.1f %8.1f %8s %7s%s" % (
            row["image"][-44:], row["faces"], row["stage"], row["network"] or 0, row["smiles"], row["second"], row["yunet"],
            "%.1f" % row["upstream"] if row["upstream"] else "-",
            "%.2f" % (row["stage"] / row["upstream"]) if row["upstream"] else "-", " (first, excluded)" if row["first"] else ""))
    kept = [row for row in rows if not row["first"]]

    def median(key):
        return statistics.median(row[key] for row in kept)
    print("\nmedian over %d photos, the first excluded: stage %.1f ms, network %.1f, smiles %.1f, second look %.1f; "
          "YuNetBench warm %.1f (least of each)" % (len(kept), median("stage"), median("network"), median("smiles"), median("second"), median("yunet")))
    print("median stage / YuNetBench: %.2f" % statistics.median(row["stage"] / row["yunet"] for row in kept))
    summary = {"stage": median("stage"), "yunet": median("yunet")}
    if all(row["upstream"] for row in kept):
        print("median C++ %.1f ms; median stage / C++: %.2f (target <= 1.0, stretch 0.8); median of the stage's median / C++'s: %.2f"
              % (median("upstream"), statistics.median(row["stage"] / row["upstream"] for row in kept),
                 median("stage") / median("upstream")))
        summary["ratio"] = statistics.median(row["stage"] / row["upstream"] for row in kept)
    else:
        print("upstream's C++ not found (bench/faces/yunet-reference/build.sh, or --reference): no ratio")
    if args.json:
        json.dump({"rows": rows, "summary": summary}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
