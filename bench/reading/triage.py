#!/usr/bin/env python3
"""How well the review triage (Sources/Reading/Triage) finds the pages that need review.

  triage.py run    [--out DIR] [--gloss BIN] [--jobs 2]   # gloss annotate, fast and accurate, once
  triage.py report [--out DIR] [--tune]                   # precision/recall of the flags, per half

`run` links the 73 OCR-quality pages (.build/ocr-data, each with its `half`) and the photos of
.build/face-data (role faces or negative; in listing order the even-numbered ones tune, the odd
ones measure, as bench/faces does) into one folder and reads it with `gloss annotate -f json`
twice, `--text fast` and `--text accurate`. It is the costly part: an existing output is reused.

`report` reads the page JSONs. A text page truly needs review when Gloss's word recall against
its ground truth is under RECALL (bench/ocr-quality/score.py's tokens; CER is printed per page
but not used: on tables it mostly measures reading order, not text a reader must fix); a photo of the face set has no text to review, so it never needs it. The flag is the page
JSON's verdict (`review.suspect or review.lowConfidence`, the policy as built). `--tune`
recomputes the verdict from the recorded evidence over a grid of thresholds, picks the best F1
on the tune half, and reports both halves with it.
"""
import argparse, itertools, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr-quality"))
import score  # noqa: E402  (tokens, bag_f1, cer)

MODES = ("fast", "accurate")
RECALL = 0.8   # under this word recall a reader must look at the page: words are missing or wrong

# The policy as built (Sources/Reading/Triage/Triage.swift, TriagePolicy).
POLICY = {"textInk": 0.16, "textInkArea": 0.0015, "unreadLines": 0.10, "disagreement": 0.35,
          "lowConfidence": 85.0, "photoWords": 10, "photoWordArea": 0.02}


def pages():
    """(name, half, image path, truth text or None) for every page of the bench."""
    data = os.path.join(ROOT, ".build", "ocr-data")
    with open(os.path.join(data, "manifest.json"), encoding="utf-8") as f:
        for p in json.load(f):
            with open(os.path.join(data, p["truth"]), encoding="utf-8") as t:
                yield p["name"], p["half"], os.path.join(data, p["image"]), t.read()
    faces = os.path.join(ROOT, ".build", "face-data")
    with open(os.path.join(faces, "annotations.json"), encoding="utf-8") as f:
        photos = [a for a in json.load(f) if a["role"] in ("faces", "negative")]
    for index, a in enumerate(photos):
        name = "photo-" + os.path.splitext(a["image"].replace("/", "-"))[0]
        yield name, "tune" if index % 2 == 0 else "measure", os.path.join(faces, a["image"]), None


def run(args):
    inputs = os.path.join(args.out, "inputs")
    os.makedirs(inputs, exist_ok=True)
    for name, _, image, _ in pages():
        link = os.path.join(inputs, name + os.path.splitext(image)[1])
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(image), link)
    for mode in MODES:
        out = os.path.join(args.out, mode)
        if os.path.exists(os.path.join(out, "gloss.json")):
            print("reusing", out, file=sys.stderr)
            continue
        cmd = ["nice", args.gloss, "annotate", inputs, "-o", out, "-f", "json", "--text", mode, "-j", str(args.jobs)]
        print("+", " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True)


def load(out, mode):
    """Page JSON by page name (the input's file name without extension)."""
    with open(os.path.join(out, mode, "gloss.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    found = {}
    for entry in manifest["pages"]:
        path = entry.get("outputs", {}).get("json")
        if not path:
            continue
        with open(os.path.join(out, mode, path), encoding="utf-8") as f:
            found[os.path.splitext(os.path.basename(entry["source"]))[0]] = json.load(f)
    return found


def evidence(page):
    review = page.get("review") or {}
    words = page.get("words", [])
    area = max(1, page["width"] * page["height"])
    confidences = [w["confidence"] for w in words]
    return {
        "textInk": review.get("textInk", 0), "textInkArea": review.get("textInkArea", 0),
        "unreadLines": review.get("unreadLines"), "disagreement": review.get("disagreement"),
        "words": len(words), "mean": sum(confidences) / len(confidences) if confidences else None,
        "faces": len(page.get("faces", [])),
        "wordArea": sum(w["box"]["width"] * w["box"]["height"] for w in words) / area,
    }


def verdict(e, p):
    """Triage.verdict, mirrored: the reasons for evidence `e` under policy `p`."""
    reasons = []
    stray = e["words"] < p["photoWords"] or (e["faces"] > 0 and e["wordArea"] < p["photoWordArea"])
    if e["unreadLines"] is not None and e["unreadLines"] >= p["unreadLines"] and not stray:
        reasons.append("unread-lines")
    if e["textInk"] >= p["textInk"] and e["textInkArea"] >= p["textInkArea"]:
        reasons.append("ink-without-words")
    if e["disagreement"] is not None and e["disagreement"] >= p["disagreement"]:
        reasons.append("readers-disagree")
    if e["mean"] is not None and e["mean"] < p["lowConfidence"] and not stray:
        reasons.append("unsure-words")
    return reasons


def truth_of(page, truth):
    """Whether the page truly needs review, with its recall and CER (None for a photo)."""
    if truth is None:
        return False, None, None
    found = page.get("text", "")
    _, recall, _ = score.bag_f1(score.tokens(truth), score.tokens(found))
    cer = score.levenshtein(score.normalise(truth), score.normalise(found)) / max(1, len(score.normalise(truth)))
    return recall < RECALL, recall, cer


def scores(rows, policy, which="any"):
    tp = fp = fn = 0
    for r in rows:
        reasons = verdict(r["evidence"], policy)
        if which == "suspect":
            flagged = any(x != "unsure-words" for x in reasons)
        elif which == "low":
            flagged = "unsure-words" in reasons
        else:
            flagged = bool(reasons)
        tp += flagged and r["needs"]
        fp += flagged and not r["needs"]
        fn += (not flagged) and r["needs"]
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan")
    return tp, fp, fn, precision, recall, f1


def grid():
    for ink, unread, disagree, low, area, words in itertools.product(
            (0.06, 0.08, 0.10, 0.12, 0.16), (0.05, 0.10, 0.15, 0.25), (0.25, 0.35, 0.5, 1.01), (60.0, 70.0, 75.0, 80.0, 85.0),
            (0.005, 0.01, 0.015, 0.02), (10, 20, 50)):
        yield dict(POLICY, textInk=ink, unreadLines=unread, disagreement=disagree, lowConfidence=low,
                   photoWordArea=area, photoWords=words)


def closeness(p):
    """How few thresholds move from the policy as built: the tie-break between equal F1s."""
    return -sum(v != POLICY[k] for k, v in p.items())


def report(args):
    listing = list(pages())
    rows_by_mode = {}
    for mode in MODES:
        if not os.path.exists(os.path.join(args.out, mode, "gloss.json")):
            print(f"## {mode}: not read yet (triage.py run)")
            continue
        found = load(args.out, mode)
        rows = []
        for name, half, _, truth in listing:
            if name not in found:
                continue
            needs, recall, cer = truth_of(found[name], truth)
            rows.append({"name": name, "half": half, "needs": needs, "recall": recall, "cer": cer,
                         "evidence": evidence(found[name]),
                         "recorded": (found[name].get("review") or {}).get("reasons") or []})
        rows_by_mode[mode] = rows
    policies = [("as built", POLICY)]
    if args.tune:
        # One policy for both modes, chosen on the tune half of both.
        tune = [r for rows in rows_by_mode.values() for r in rows if r["half"] == "tune"]

        def f1(p):
            value = scores(tune, p)[5]
            return value if value == value else -1

        # Photos of the tune half flagged "low confidence" are a defect of their own: fewest first.
        def photos_low(p):
            return sum(1 for r in tune if r["recall"] is None and "unsure-words" in verdict(r["evidence"], p))
        best = max(grid(), key=lambda p: (-photos_low(p), f1(p), closeness(p)))
        policies.append(("tuned on tune", best))
    for mode, rows in rows_by_mode.items():
        for label, policy in policies:
            changed = {k: v for k, v in policy.items() if POLICY[k] != v}
            print(f"## {mode}, policy {label} {changed or ''}")
            for half in ("tune", "measure"):
                here = [r for r in rows if r["half"] == half]
                for which in ("any", "suspect", "low"):
                    tp, fp, fn, p, r, f = scores(here, policy, which)
                    print(f"{half:8s} {which:8s} pages {len(here):3d} need {sum(x['needs'] for x in here):2d}"
                          f"  flagged right {tp:2d} wrongly {fp:2d} missed {fn:2d}  precision {p:.2f} recall {r:.2f} F1 {f:.2f}")
            photos = [r for r in rows if r["recall"] is None]
            low_photos = [r["name"] for r in photos if "unsure-words" in verdict(r["evidence"], policy)]
            print(f"photos {len(photos)}: low confidence {len(low_photos)} {low_photos}")
        if args.pages:
            for r in rows:
                e = r["evidence"]
                print(f"  {mode} {r['half']:7s} {r['name']:45s} needs {int(r['needs'])} recall {r['recall'] if r['recall'] is None else round(r['recall'], 3)}"
                      f" cer {r['cer'] if r['cer'] is None else round(r['cer'], 3)} ink {e['textInk']} unread {e['unreadLines']}"
                      f" disagree {e['disagreement']} words {e['words']} mean {e['mean'] and round(e['mean'], 1)}"
                      f" faces {e['faces']} area {e['wordArea']:.3f} -> {verdict(e, policies[-1][1])} (page JSON: {r['recorded']})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=("run", "report"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "triage-bench"))
    ap.add_argument("--gloss", default=os.path.join(ROOT, ".build", "release", "gloss"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--tune", action="store_true", help="choose the thresholds on the tune half")
    ap.add_argument("--pages", action="store_true", help="list every page's evidence and verdict")
    args = ap.parse_args()
    (run if args.command == "run" else report)(args)


if __name__ == "__main__":
    main()
