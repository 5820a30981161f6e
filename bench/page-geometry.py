#!/usr/bin/env python3
"""How well Gloss reads pages turned and skewed, against the same pages upright.

For each page given (an image beside NAME.gt.txt, as bench/ocr-quality gathers them), makes
copies turned 90, 180 and 270 degrees clockwise and 3 degrees counter-clockwise (Leptonica,
through ctypes: the page grown to hold the turned page, white corners; in its own colours), and
one turned 3 degrees and back (`resampled`: the skewed copy's two resamplings without the
skew, the reference that levelling can at best reach), reads each with
`gloss ocr` (--prepare auto) and the upright page with --prepare none as well, and prints the
bag-of-words F1 of each against the page's ground truth, the preparation record and the time.

  page-geometry.py --gloss .build/release/gloss PAGE.png ... [--json OUT]
"""
import argparse, collections, ctypes, json, math, os, subprocess, sys, tempfile, time, unicodedata

LEPT = ctypes.CDLL("liblept.so.5")
LEPT.pixRead.restype = ctypes.c_void_p
LEPT.pixRead.argtypes = [ctypes.c_char_p]
LEPT.pixRotateOrth.restype = ctypes.c_void_p
LEPT.pixRotateOrth.argtypes = [ctypes.c_void_p, ctypes.c_int]
LEPT.pixRotate.restype = ctypes.c_void_p
LEPT.pixRotate.argtypes = [ctypes.c_void_p, ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
LEPT.pixConvertTo8.restype = ctypes.c_void_p
LEPT.pixConvertTo8.argtypes = [ctypes.c_void_p, ctypes.c_int]
LEPT.pixWrite.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
LEPT.pixGetWidth.argtypes = LEPT.pixGetHeight.argtypes = LEPT.pixGetDepth.argtypes = [ctypes.c_void_p]
LEPT.pixGetColormap.restype = ctypes.c_void_p
LEPT.pixGetColormap.argtypes = [ctypes.c_void_p]
LEPT.pixRemoveColormap.restype = ctypes.c_void_p
LEPT.pixRemoveColormap.argtypes = [ctypes.c_void_p, ctypes.c_int]
LEPT.pixSetSpp.argtypes = [ctypes.c_void_p, ctypes.c_int]
LEPT.pixDestroy.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, IFF_PNG, REMOVE_CMAP_BASED_ON_SRC = 1, 1, 3, 4


def turned(source, target, quarters=0, degrees=0.0, back=False):
    """`source` turned clockwise by `quarters` quarter turns or counter-clockwise by `degrees`, as a PNG.

    The page keeps its colours: a grey copy would read worse than the colour page it is compared
    with (Tesseract thresholds each channel), and the difference would be charged to the turn.
    Only what rotation with interpolation cannot take is changed: 1-bit and palette pages become
    grey or colour, and an alpha channel (opaque on every bench page) is dropped.
    """
    pix = LEPT.pixRead(source.encode())
    if degrees:
        if LEPT.pixGetColormap(pix):
            pix = LEPT.pixRemoveColormap(pix, REMOVE_CMAP_BASED_ON_SRC)
        if LEPT.pixGetDepth(pix) < 8:
            pix = LEPT.pixConvertTo8(pix, 0)
    if LEPT.pixGetDepth(pix) == 32:
        LEPT.pixSetSpp(pix, 3)
    if quarters:
        pix = LEPT.pixRotateOrth(pix, quarters)
    if degrees:
        w, h = LEPT.pixGetWidth(pix), LEPT.pixGetHeight(pix)
        a = math.radians(degrees)
        grown_w = int(w * abs(math.cos(a)) + h * abs(math.sin(a))) + 1
        grown_h = int(w * abs(math.sin(a)) + h * abs(math.cos(a))) + 1
        # Leptonica turns clockwise for a positive angle.
        pix = LEPT.pixRotate(pix, -a, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, grown_w, grown_h)
        if back:
            # Straight again, through a second resampling: what levelling can at best return.
            pix = LEPT.pixRotate(pix, a, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0)
    LEPT.pixWrite(target.encode(), pix, IFF_PNG)


def words(text):
    """Words with punctuation trimmed from both ends, NFKC-folded; case kept."""
    found = []
    for raw in unicodedata.normalize("NFKC", text).split():
        start, end = 0, len(raw)
        while start < end and unicodedata.category(raw[start])[0] in "PS":
            start += 1
        while end > start and unicodedata.category(raw[end - 1])[0] in "PS":
            end -= 1
        if start < end:
            found.append(raw[start:end])
    return found


def f1(truth, found):
    t, f = collections.Counter(truth), collections.Counter(found)
    hits = sum((t & f).values())
    total = sum(t.values()) + sum(f.values())
    return 2 * hits / total if total else 1.0


def read(gloss, image, prepare):
    started = time.monotonic()
    out = subprocess.run([gloss, "ocr", image, "--prepare", prepare], capture_output=True, text=True,
                         env=dict(os.environ, OMP_THREAD_LIMIT="1"))
    elapsed = time.monotonic() - started
    if out.returncode != 0:
        sys.exit(f"gloss failed on {image}: {out.stderr}")
    return json.loads(out.stdout), elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gloss", default=".build/release/gloss")
    parser.add_argument("--json")
    parser.add_argument("--variants", help="comma-separated names of the variants to read (default: all)")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args()
    variants = [("upright-none", None, "none"), ("upright", None, "auto"), ("turned-90", (1, 0), "auto"),
                ("turned-180", (2, 0), "auto"), ("turned-270", (3, 0), "auto"), ("skewed-3", (0, 3.0), "auto"),
                ("skewed-3-none", (0, 3.0), "none"), ("resampled", (0, 3.0, True), "auto")]
    if args.variants:
        chosen = args.variants.split(",")
        variants = [v for v in variants if v[0] in chosen or v[0] == "upright"]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for page in args.pages:
            truth = words(open(os.path.splitext(page)[0] + ".gt.txt", encoding="utf-8").read())
            name = os.path.splitext(os.path.basename(page))[0]
            for variant, convert, prepare in variants:
                image = page
                if convert:
                    image = os.path.join(scratch, f"{name}-{variant}.png")
                    turned(page, image, *convert)
                report, elapsed = read(args.gloss, image, prepare)
                timings = report.get("timings", {})
                row = {"page": name, "variant": variant, "f1": round(f1(truth, words(report["text"])), 4),
                       "seconds": round(elapsed, 2), "ocr_ms": timings.get("ocr"), "prepare_ms": timings.get("prepare"),
                       "preparation": report.get("preparation")}
                rows.append(row)
                prep = row["preparation"] or {}
                print(f"{name:28} {variant:13} F1 {row['f1']:.4f}  {elapsed:6.2f} s  prepare {row['prepare_ms'] or 0:7.1f} ms  "
                      f"rotation {prep.get('rotation', '-')} conf {prep.get('orientationConfidence', '-')} skew {prep.get('skew', '-')}",
                      flush=True)
    by_variant = collections.defaultdict(list)
    for row in rows:
        by_variant[row["variant"]].append(row)
    print()
    for variant, _, _ in variants:
        group = by_variant[variant]
        print(f"{variant:13} mean F1 {sum(r['f1'] for r in group) / len(group):.4f}  "
              f"mean prepare {sum(r['prepare_ms'] or 0 for r in group) / len(group):7.1f} ms  "
              f"mean ocr {sum(r['ocr_ms'] or 0 for r in group) / len(group):7.1f} ms")
    # Against the upright page read with --prepare auto: pages within 0.01 F1, better, worse.
    # (The skewed copy is resampled twice on its way to Tesseract, once by the bench and once
    # by the levelling; `resampled`, the page turned 3 degrees and back, shows what that costs.)
    def compare(variant, reference):
        f1s = {r["page"]: r["f1"] for r in by_variant[reference]}
        deltas = [r["f1"] - f1s[r["page"]] for r in by_variant[variant]]
        print(f"{variant:13} vs {reference}: within 0.01 on {sum(abs(d) <= 0.01 for d in deltas)} of {len(deltas)}, "
              f"better on {sum(d > 0.01 for d in deltas)}, worse on {sum(d < -0.01 for d in deltas)}")

    print()
    for variant, _, _ in variants:
        if variant != "upright":
            compare(variant, "upright")
    if by_variant["skewed-3"] and by_variant["resampled"]:
        compare("skewed-3", "resampled")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
