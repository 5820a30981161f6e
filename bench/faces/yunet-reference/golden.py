#!/usr/bin/python3
"""Record the YuNet golden files in Tests/FaceDetectionTests/Golden/yunet/.

    /usr/bin/python3 bench/faces/yunet-reference/golden.py --reference PATH/TO/reference \
        --commit UPSTREAM_COMMIT [--runs N] [--out DIR]

Run from the repository root. Needs Debian's python3-pil (9.4) for the resizing; the driver
comes from build.sh. For every fixture below, and every size (longest side 640, the fixture's
own size when its longest side is below 640, and a few smaller sizes), it writes the exact RGB
pixels the driver saw as a PNG under OUT/inputs/ (except when they are a fixture's own
pixels), runs the driver on them, and writes OUT/<name>.json: upstream's detections and its
ten best priors. The median times go to stdout only, since they depend on the machine.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image, __version__ as pillow_version

# (name, fixture, extra longest sides). The extra small sizes give detections near upstream's
# threshold (scores 0.2 to 0.5), which the 640 px inputs do not.
FIXTURES = [
    ("faces-astronaut", "fixtures/faces/astronaut.png", [64, 48]),
    ("faces-astronaut-trio", "fixtures/faces/astronaut-trio.png", [320]),
    ("text-sans", "fixtures/text/sans.png", []),
    ("scans-page", "fixtures/scans/page.png", []),
    ("formats-page", "fixtures/formats/page.webp", []),
]
LONGEST = 640
UPSTREAM = "https://github.com/ShiqiYu/libfacedetection"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def format_golden(golden):
    """JSON with one line per member, and one line per detection or prior."""
    members = []
    for key, value in golden.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            rows = ",\n".join("  " + json.dumps(v) for v in value)
            members.append(" %s: [\n%s\n ]" % (json.dumps(key), rows))
        else:
            members.append(" %s: %s" % (json.dumps(key), json.dumps(value)))
    return "{\n" + ",\n".join(members) + "\n}\n"


def scaled(width, height, side):
    """The size with the longest side `side`: each side times side/longest, half rounded up."""
    longest = max(width, height)
    return ((width * side * 2 + longest) // (2 * longest),
            (height * side * 2 + longest) // (2 * longest))


def target_sizes(width, height, extra):
    """Longest side 640; the size as it is when below 640; then the extra longest sides."""
    longest = max(width, height)
    sizes = []
    if longest != LONGEST:
        sizes.append(scaled(width, height, LONGEST))
    if longest <= LONGEST:
        sizes.append((width, height))
    return sizes + [scaled(width, height, side) for side in extra]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", required=True, help="the driver built by build.sh")
    parser.add_argument("--commit", required=True, help="upstream commit the driver was built from")
    parser.add_argument("--runs", type=int, default=11, help="timed runs per image")
    parser.add_argument("--out", default="Tests/FaceDetectionTests/Golden/yunet")
    args = parser.parse_args()

    inputs_dir = os.path.join(args.out, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    timings = []
    with tempfile.TemporaryDirectory() as scratch:
        for stem, fixture, extra in FIXTURES:
            with open(fixture, "rb") as f:
                fixture_bytes = f.read()
            image = Image.open(fixture)
            image.load()
            rgb = image.convert("RGB")
            own_pixels_are_rgb = image.mode == "RGB"
            for size in target_sizes(rgb.size[0], rgb.size[1], extra):
                name = "%s-%dx%d" % (stem, size[0], size[1])
                resized = size != rgb.size
                pixels = rgb.resize(size, Image.Resampling.BOX) if resized else rgb
                if resized or not own_pixels_are_rgb:
                    input_path = os.path.join(inputs_dir, name + ".png")
                    pixels.save(input_path, format="PNG", optimize=True)
                    check = Image.open(input_path)
                    if check.mode != "RGB" or check.tobytes() != pixels.tobytes():
                        raise SystemExit("%s does not read back the same" % input_path)
                else:
                    input_path = fixture
                ppm = os.path.join(scratch, name + ".ppm")
                pixels.save(ppm, format="PPM")
                run = subprocess.run([args.reference, "--runs", str(args.runs), ppm],
                                     check=True, capture_output=True, text=True)
                result = json.loads(run.stdout)
                golden = {
                    "fixture": fixture,
                    "fixture_sha256": sha256(fixture_bytes),
                    "input": input_path,
                    "input_rgb_sha256": sha256(pixels.tobytes()),
                    "resize": ({
                        "from": list(rgb.size), "to": list(size),
                        "how": "Pillow %s: Image.open(fixture).convert('RGB').resize(to, "
                               "Image.Resampling.BOX)" % pillow_version,
                    } if resized else None),
                    "upstream": {"repository": UPSTREAM, "commit": args.commit,
                                 "driver": "bench/faces/yunet-reference/reference.cpp"},
                    "width": result["width"], "height": result["height"],
                    "padded_width": result["padded_width"],
                    "padded_height": result["padded_height"],
                    "priors": result["priors"],
                    "upstream_parameters": result["upstream_parameters"],
                    "min_score": result["upstream_parameters"]["confidence_threshold"],
                    "detections": result["detections"],
                    "top_priors": result["top_priors"],
                }
                with open(os.path.join(args.out, name + ".json"), "w") as f:
                    f.write(format_golden(golden))
                timings.append((name, result["time_ms"]["median"], len(result["detections"])))
    sys.stdout.write("%-30s %10s %s\n" % ("input", "median ms", "detections"))
    for name, ms, count in timings:
        sys.stdout.write("%-30s %10.2f %d\n" % (name, ms, count))


if __name__ == "__main__":
    main()
