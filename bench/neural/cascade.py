"""The recogniser's cascade (reduced products, with lines read again in fp32), measured line by line.

Runs CascadeBench on RapidOCR's picture of each page (the `same` agreement's input, as
`bench/neural.sh` caches it under CACHE/rapid-input/), or with `--pages` on the pages
themselves, which reads every line with the quick recogniser (bf16 on AMX, 16-bit integers on
AVX2 alone) and in fp32, and prints, per half and per signal and threshold, the share of lines
the cascade would read again, the lines whose quick reading differs from the fp32 one (after
RapidOCR's filters: a line of no text or of confidence under 0.5 counts as no line), how many
of those the rule catches, and the recogniser's CPU time against fp32 alone. Choose the
threshold on the tune half.

  .build/venv/bin/python bench/neural/cascade.py \\
      --bench .build/release/CascadeBench --out .build/cascade-lines.jsonl [--pages]
"""
import argparse
import json
import os
import subprocess
import sys

SIGNALS = ("decisive", "gap", "least")
THRESHOLDS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
MINIMUM_CONFIDENCE = 0.5


def kept(reading):
    """The text RapidOCR's filters keep of a reading ("" for a dropped line)."""
    text = " ".join(reading["text"].split())
    return text if text and reading["confidence"] >= MINIMUM_CONFIDENCE else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=".build/ocr-data", help="the pages, with manifest.json's halves")
    ap.add_argument("--cache", default=".build/ocr-quality-cache", help="bench/neural.sh's cache")
    ap.add_argument("--bench", default=".build/release/CascadeBench")
    ap.add_argument("--out", required=True, help="the lines' records (read again when present)")
    ap.add_argument("--pages", action="store_true", help="read the pages themselves, not RapidOCR's pictures of them")
    args = ap.parse_args()
    manifest = json.load(open(os.path.join(args.data, "manifest.json")))
    by_image = {p["image"]: p for p in (manifest["pages"] if isinstance(manifest, dict) else manifest)}
    if args.pages:
        pictures = [(page, os.path.join(args.data, image)) for image, page in sorted(by_image.items())]
    else:
        folder = os.path.join(args.cache, "rapid-input")
        pictures = [json.load(open(os.path.join(folder, f))) for f in sorted(os.listdir(folder)) if f.endswith(".json")]
        pictures = [(by_image[os.path.relpath(p["image"], args.data)], p["out"]) for p in pictures if not p["error"]]
    halves = {page["name"]: page["half"] for page, _ in pictures}
    if not os.path.exists(args.out):
        argv = [f"{page['name']}={out}" for page, out in sorted(pictures, key=lambda x: x[0]["name"])]
        with open(args.out + ".part", "w") as out:
            subprocess.run([args.bench] + argv, stdout=out, check=True,
                           env=dict(os.environ, GLOSS_NEURAL_KERNELS=os.environ.get("GLOSS_NEURAL_KERNELS", "cascade")))
        os.replace(args.out + ".part", args.out)
    lines = [json.loads(l) for l in open(args.out)]
    kernels = lines[0].get("kernels", "quick") if lines else "quick"
    for half in ("tune", "measure", None):
        chosen = [l for l in lines if half is None or halves[l["page"]] == half]
        differ = [l for l in chosen if kept(l["quick"]) != kept(l["fp32"])]
        fp32_ms = sum(l["fp32"]["ms"] for l in chosen)
        quick_ms = sum(l["quick"]["ms"] for l in chosen)
        print(f"\n{half or 'all'}: {len(chosen)} lines on {len({l['page'] for l in chosen})} pages; "
              f"{kernels} reads {len(differ)} otherwise than fp32; recogniser CPU {kernels} / fp32 {quick_ms / fp32_ms:.2f}")
        for d in differ:
            print(f"  {d['page'][:28]:28} decisive {d['quick']['decisive']:.3f} gap {d['quick']['gap']:.3f} "
                  f"least {d['quick']['least']:.3f} conf {d['quick']['confidence']:.2f}/{d['fp32']['confidence']:.2f} "
                  f"{kept(d['quick'])[:40]!r} / {kept(d['fp32'])[:40]!r}")
        print(f"  {'signal':9} {'under':>6} {'re-read':>8} {'caught':>7} {'left':>5} {'CPU vs fp32':>11}")
        for signal in SIGNALS:
            for t in THRESHOLDS:
                again = [l for l in chosen if l["quick"][signal] < t]
                caught = sum(1 for l in differ if l["quick"][signal] < t)
                ms = quick_ms + sum(l["fp32"]["ms"] for l in again)
                print(f"  {signal:9} {t:6.2f} {len(again) / len(chosen):8.3f} {caught:7d} {len(differ) - caught:5d} {ms / fp32_ms:11.2f}")


if __name__ == "__main__":
    sys.exit(main())
