#!/usr/bin/env python3
"""Score Gloss against the Tesseract CLI on the OCR-quality pages (see README.md).

For every page of DATA/manifest.json: `tesseract IMAGE -` with default settings
(OMP_THREAD_LIMIT=1) and `gloss ocr IMAGE [ARGS]` for each variant; bag-of-words F1 and CER
against NAME.gt.txt. Prints a per-page table, per-group and overall means; --json writes it all.

  score.py [--data DIR] [--gloss BIN] [--variant NAME[@BIN]=ARGS ...] [--group G ...]
           [--page SUBSTRING ...] [--jobs 2] [--json OUT] [--no-cache]

Without --variant there is one variant, "gloss", with the arguments in $GLOSS_ARGS.
"""
import argparse, concurrent.futures, hashlib, json, os, shlex, subprocess, sys, time, unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

# Typographic variants folded before comparing; NFKC does ligatures, full-width forms, "…".
FOLD = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'", "\u00b4": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
    "\u00ad": None,
})


def normalise(text):
    """NFKC, folded quotes and dashes, whitespace runs as one space."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(FOLD).split())


def is_edge(ch):
    return unicodedata.category(ch)[0] in "PS"


def tokens(text):
    """Words of the normalised text with punctuation and symbols stripped from both ends; case kept."""
    out = []
    for raw in normalise(text).split(" "):
        start, end = 0, len(raw)
        while start < end and is_edge(raw[start]):
            start += 1
        while end > start and is_edge(raw[end - 1]):
            end -= 1
        if start < end:
            out.append(raw[start:end])
    return out


def bag_f1(truth, found):
    """Precision, recall and F1 of the multiset of found tokens against the truth's."""
    from collections import Counter
    t, f = Counter(truth), Counter(found)
    hits = sum((t & f).values())
    precision = hits / len(found) if found else (1.0 if not truth else 0.0)
    recall = hits / len(truth) if truth else 1.0
    f1 = 2 * hits / (len(truth) + len(found)) if (truth or found) else 1.0
    return precision, recall, f1


def plain_levenshtein(a, b):
    """Edit distance in plain Python: slow (minutes on a dense page), used without rapidfuzz."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def levenshtein(a, b):
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:
        return plain_levenshtein(a, b)
    return Levenshtein.distance(a, b)


def cer(truth, found):
    """Edit distance between the whitespace-normalised texts over the truth's length."""
    t, f = normalise(truth), normalise(found)
    return levenshtein(t, f) / max(1, len(t))


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def image_kind(path):
    """Format and pixel layout, e.g. 'PNG RGBA', 'JPEG RGB', 'TIFF 1-bit'."""
    try:
        from PIL import Image
        with Image.open(path) as im:
            mode = {"1": "1-bit", "L": "grey", "P": "palette", "LA": "grey+alpha", "PA": "palette+alpha"}.get(im.mode, im.mode)
            if im.mode == "P" and "transparency" in im.info:
                mode = "palette+alpha"
            return f"{im.format} {mode}"
    except Exception:  # the kind is only a label
        return os.path.splitext(path)[1].lstrip(".").upper()


class Cache:
    def __init__(self, root, enabled):
        self.root, self.enabled = root, enabled

    def path(self, kind, key):
        return os.path.join(self.root, kind, key + ".json")

    def get(self, kind, key):
        if not self.enabled:
            return None
        try:
            with open(self.path(kind, key), encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def put(self, kind, key, value):
        p = self.path(kind, key)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p + ".tmp", "w", encoding="utf-8") as f:
            json.dump(value, f)
        os.replace(p + ".tmp", p)


def timed(cmd, env=None):
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, env=env)
    return proc, time.monotonic() - start


def run_cli(image, cache, image_sha, version, extra):
    key = hashlib.sha256((f"{image_sha} {version}" + (f" {extra}" if extra else "")).encode()).hexdigest()
    hit = cache.get("cli", key)
    if hit:
        return hit
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    proc, seconds = timed(["tesseract", image, "-"] + shlex.split(extra), env)
    result = {"text": proc.stdout.decode("utf-8", "replace"), "seconds": seconds,
              "error": proc.stderr.decode("utf-8", "replace")[-400:] if proc.returncode else None}
    if proc.returncode == 0:
        cache.put("cli", key, result)
    return result


def run_gloss(image, variant, cache, image_sha):
    key = hashlib.sha256(f"{image_sha} {variant['binary_sha']} {variant['args']}".encode()).hexdigest()
    hit = cache.get("gloss", key)
    if hit:
        return hit
    page, result = read_gloss(image, variant)
    if page is None:
        return result
    result["preparation"] = page.get("preparation")
    cache.put("gloss", key, result)
    return result


def read_gloss(image, variant):
    """Runs `gloss ocr IMAGE ARGS` (OMP_THREAD_LIMIT=1): (its page JSON or None, the result).

    The result holds the text, the words' texts, the wall time and an error, if any; the page is
    None when the process failed or printed no JSON (not to be cached).
    """
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    proc, seconds = timed([variant["binary"], "ocr", image] + variant["argv"], env)
    result = {"text": "", "words": [], "seconds": seconds, "error": None}
    if proc.returncode != 0:
        result["error"] = proc.stderr.decode("utf-8", "replace")[-400:]
        return None, result
    try:
        page = json.loads(proc.stdout)
    except ValueError as error:
        result["error"] = f"not JSON: {error}"
        return None, result
    result["text"] = page.get("text") or ""
    result["words"] = [w.get("text", "") for w in page.get("words", [])]
    result["error"] = page.get("error")
    return page, result


def parse_variant(spec, default_binary):
    name, _, args = spec.partition("=")
    binary = default_binary
    if "@" in name:
        name, binary = name.split("@", 1)
    return {"name": name, "binary": os.path.abspath(binary), "args": args, "argv": shlex.split(args)}


def accepts(variant, image):
    """Whether this gloss accepts the variant's arguments, tried on a small page."""
    if not variant["argv"]:
        return True
    proc = subprocess.run([variant["binary"], "ocr", image] + variant["argv"], capture_output=True)
    return b"unknown option" not in proc.stderr


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def fmt(v, width=6, digits=3):
    return f"{v:{width}.{digits}f}" if v is not None else " " * (width - 1) + "-"


def page_options(description):
    """The options every bench over these pages takes: data, gloss, filters, jobs, output, cache."""
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(ROOT, ".build", "ocr-data"))
    ap.add_argument("--gloss", default=os.environ.get("GLOSS", os.path.join(ROOT, ".build", "release", "gloss")))
    ap.add_argument("--group", action="append", help="only these groups (repeatable)")
    ap.add_argument("--page", action="append", help="only pages whose name contains this (repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="pages read at once (default 2)")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--cache", default=os.path.join(ROOT, ".build", "ocr-quality-cache"))
    ap.add_argument("--no-cache", action="store_true", help="run everything again (the CLI too)")
    return ap


def selected_pages(args):
    """The manifest's pages that --group and --page select."""
    with open(os.path.join(args.data, "manifest.json"), encoding="utf-8") as f:
        pages = json.load(f)
    if args.group:
        pages = [p for p in pages if p["group"] in args.group]
    if args.page:
        pages = [p for p in pages if any(s in p["name"] for s in args.page)]
    return pages


def main():
    ap = page_options(__doc__)
    ap.add_argument("--variant", action="append", default=[], metavar="NAME[@BIN]=ARGS")
    ap.add_argument("--cli-args", default="", help="extra tesseract arguments for the baseline (default: none)")
    args = ap.parse_args()

    pages = selected_pages(args)
    variants = [parse_variant(s, args.gloss) for s in (args.variant or [f"gloss={os.environ.get('GLOSS_ARGS', '')}"])]
    probe = min((os.path.join(args.data, p["image"]) for p in pages), key=os.path.getsize, default=None)
    for v in variants:
        if not os.access(v["binary"], os.X_OK):
            sys.exit(f"no gloss binary at {v['binary']} (build it, or pass --gloss / GLOSS)")
        v["binary_sha"] = file_hash(v["binary"])
        if pages and not accepts(v, probe):
            print(f"warning: {v['binary']} refuses '{v['args']}'; variant {v['name']} runs with no extra arguments",
                  file=sys.stderr)
            v["refused"] = v["args"]
            v["args"], v["argv"] = "", []
    try:
        import rapidfuzz  # noqa: F401
    except ImportError:
        print("warning: no rapidfuzz here (bench/ocr-quality/make.sh installs it): CER in plain Python is slow",
              file=sys.stderr)
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    cache = Cache(args.cache, not args.no_cache)

    def score(page):
        image = os.path.join(args.data, page["image"])
        with open(os.path.join(args.data, page["truth"]), encoding="utf-8") as f:
            truth = f.read()
        truth_tokens = tokens(truth)
        sha = page.get("sha256") or file_hash(image)
        row = {"name": page["name"], "group": page["group"], "kind": image_kind(image), "tags": page.get("tags", []),
               "truth_words": len(truth_tokens)}
        cli = run_cli(image, cache, sha, version, args.cli_args)
        p, r, f1 = bag_f1(truth_tokens, tokens(cli["text"]))
        row["cli"] = {"f1": f1, "precision": p, "recall": r, "cer": cer(truth, cli["text"]),
                      "seconds": cli["seconds"], "error": cli["error"]}
        for v in variants:
            g = run_gloss(image, v, cache, sha)
            found = tokens(" ".join(g["words"])) if g["words"] else tokens(g["text"])
            p, r, f1 = bag_f1(truth_tokens, found)
            row[v["name"]] = {"f1": f1, "precision": p, "recall": r, "cer": cer(truth, g["text"]),
                              "seconds": g["seconds"], "error": g["error"], "preparation": g.get("preparation")}
        return row

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(score, pages))
    wall = time.monotonic() - started

    names = [v["name"] for v in variants]
    head = f"{'page':34} {'group':9} {'kind':16} {'words':>5} {'CLI F1':>7}"
    for n in names:
        head += f" {n[:10] + ' F1':>13} {'delta':>7}"
    head += f" {'CLI CER':>7}" + "".join(f" {n[:8] + ' CER':>12}" for n in names)
    head += f" {'CLI s':>6}" + "".join(f" {n[:8] + ' s':>10}" for n in names)
    print(head)
    for row in rows:
        line = f"{row['name'][:34]:34} {row['group'][:9]:9} {row['kind'][:16]:16} {row['truth_words']:5d} {fmt(row['cli']['f1'], 7)}"
        for n in names:
            line += f" {fmt(row[n]['f1'], 13)} {row[n]['f1'] - row['cli']['f1']:+7.3f}"
        line += f" {fmt(row['cli']['cer'], 7)}" + "".join(f" {fmt(row[n]['cer'], 12)}" for n in names)
        line += f" {fmt(row['cli']['seconds'], 6, 2)}" + "".join(f" {fmt(row[n]['seconds'], 10, 2)}" for n in names)
        errors = [f"{k}: {row[k]['error'].strip()[:60]}" for k in ["cli"] + names if row[k]["error"]]
        print(line + ("  ! " + "; ".join(errors) if errors else ""))

    def summary(subset):
        out = {"pages": len(subset), "cli": {k: mean(r["cli"][k] for r in subset) for k in ("f1", "cer", "seconds")}}
        for n in names:
            out[n] = {k: mean(r[n][k] for r in subset) for k in ("f1", "cer", "seconds")}
            out[n]["worse_than_cli"] = sum(1 for r in subset if r[n]["f1"] < r["cli"]["f1"] - 0.005)
            out[n]["better_than_cli"] = sum(1 for r in subset if r[n]["f1"] > r["cli"]["f1"] + 0.005)
            out[n]["worst_delta"] = min((r[n]["f1"] - r["cli"]["f1"] for r in subset), default=None)
        return out

    groups = {g: summary([r for r in rows if r["group"] == g]) for g in sorted({r["group"] for r in rows})}
    overall = summary(rows)
    overall_not_scribe = summary([r for r in rows if r["group"] != "scribe"])
    print()
    print(f"{'means':34} {'pages':>5} {'CLI F1':>7}" + "".join(f" {n[:10] + ' F1':>13} {'delta':>7} {'worse':>5} {'better':>6}" for n in names)
          + f" {'CLI CER':>7}" + "".join(f" {n[:8] + ' CER':>12}" for n in names)
          + f" {'CLI s':>6}" + "".join(f" {n[:8] + ' s':>10}" for n in names))
    for label, s in list(groups.items()) + [("all but scribe", overall_not_scribe), ("ALL", overall)]:
        line = f"{label:34} {s['pages']:5d} {fmt(s['cli']['f1'], 7)}"
        if not s["pages"]:
            continue
        for n in names:
            line += f" {fmt(s[n]['f1'], 13)} {s[n]['f1'] - s['cli']['f1']:+7.3f} {s[n]['worse_than_cli']:5d} {s[n]['better_than_cli']:6d}"
        line += f" {fmt(s['cli']['cer'], 7)}" + "".join(f" {fmt(s[n]['cer'], 12)}" for n in names)
        line += f" {fmt(s['cli']['seconds'], 6, 2)}" + "".join(f" {fmt(s[n]['seconds'], 10, 2)}" for n in names)
        print(line)
    print(f"\n{len(rows)} pages in {wall:.0f} s ({args.jobs} at a time); {version}"
          + (f" with {args.cli_args!r}" if args.cli_args else " with default settings") + "; "
          + "; ".join(f"{v['name']} = {v['binary']} (sha256 {v['binary_sha'][:12]}) {v['args']!r}" + (f" (refused {v['refused']!r})" if v.get("refused") else "")
                      for v in variants))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"tesseract": version, "cli_args": args.cli_args, "data": args.data,
                       "variants": [{k: v[k] for k in ("name", "binary", "binary_sha", "args") } | ({"refused": v["refused"]} if v.get("refused") else {})
                                    for v in variants],
                       "pages": rows, "groups": groups, "all_but_scribe": overall_not_scribe, "overall": overall}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
