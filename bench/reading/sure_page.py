#!/usr/bin/env python3
"""`sure-page`'s thresholds, swept on the tune half and reported on both.

  sure_page.py PROBE.json

PROBE.json is `cost.py --baseline MAIN --json PROBE.json` run with a `gloss` built with
`FusionPolicy.surePageLines = 1` and `surePageText = 1.0`, so the rule fires on every page
Tesseract read surely, line by line, whatever ink it left: each such page's reading, CPU and
uncovered text-like ink (`review.textInk`, measured on Tesseract's words, as the rule does)
are the probe's; every other page is the baseline's. For each pair of thresholds (least lines,
most uncovered ink) a page that fired in the probe and passes both is taken as the probe read
it, else as the baseline did; the F1, CER and CPU of each half follow.
"""
import json, sys

def main():
    pages = json.load(open(sys.argv[1], encoding="utf-8"))["pages"]
    for p in pages:
        p["fired"] = "sure-page" in (p.get("preparation") or {}).get("rules", [])
        p["lines"] = len(p.get("readers") or [])
        p["ink"] = (p.get("review") or {}).get("textInk", 1.0)
    fired = [p for p in pages if p["fired"]]
    print(f"{len(fired)} of {len(pages)} pages fired in the probe (tune {sum(p['half'] == 'tune' for p in fired)}, "
          f"measure {sum(p['half'] == 'measure' for p in fired)})")
    for p in sorted(fired, key=lambda p: (p["half"], p["group"], p["name"])):
        b = p["baseline"]
        print(f"  {p['half']:7} {p['name'][:34]:34} lines {p['lines']:3d} ink {p['ink']:.3f}  F1 {b['f1']:.3f} -> {p['f1']:.3f}  "
              f"CER {b['cer']:.3f} -> {p['cer']:.3f}  CPU {b['gloss']:.2f} -> {p['gloss']:.2f} s")

    def outcome(half, least, most):
        chosen = [p for p in pages if p["half"] == half]
        taken = lambda p: p["fired"] and p["lines"] >= least and p["ink"] <= most
        f1 = sum(p["f1"] if taken(p) else p["baseline"]["f1"] for p in chosen) / len(chosen)
        cer = sum(p["cer"] if taken(p) else p["baseline"]["cer"] for p in chosen) / len(chosen)
        cpu = sum(p["gloss"] if taken(p) else p["baseline"]["gloss"] for p in chosen)
        base = sum(p["baseline"]["gloss"] for p in chosen)
        return f1, cer, cpu / base, sum(taken(p) for p in chosen)

    print("least lines, most ink: half F1 / CER / CPU against the baseline (pages taken)")
    for half in ("tune", "measure"):
        chosen = [p for p in pages if p["half"] == half]
        n = len(chosen)
        print(f"  {half}: baseline F1 {sum(p['baseline']['f1'] for p in chosen) / n:.4f} CER "
              f"{sum(p['baseline']['cer'] for p in chosen) / n:.4f}")
    for least in (1, 3, 5, 10):
        for most in (0.0, 0.01, 0.02, 0.05, 0.1, 1.0):
            row = []
            for half in ("tune", "measure"):
                f1, cer, cpu, taken = outcome(half, least, most)
                row.append(f"{half} {f1:.4f} / {cer:.4f} / {cpu:.3f}x ({taken:2d})")
            print(f"  {least:3d} {most:5.2f}  " + "   ".join(row))

if __name__ == "__main__":
    main()
