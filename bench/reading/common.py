"""What calibrate.py and simulate.py share: the pages, their readings, the labels, the CER.

A reading is one page JSON of `gloss ocr IMAGE --engine READER` (collect.py). Its words carry
`text`, `box` (pixels, top left origin) and `confidence` on 0...100 for both readers
(Tesseract's word confidence; the neural reader's mean character probability times 100), and
`line`, the index of their line in `lines`.
"""
import difflib, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "ocr-quality"))
import score  # noqa: E402  (the bench's normalisation, tokens, F1 and CER)

READERS = ("tesseract", "neural")
DATA = os.path.join(ROOT, ".build", "ocr-data")
READINGS = os.path.join(ROOT, ".build", "reading-data")
# Both readers give word confidences on 0...100 (checked on every collected page: load()).
RAW_SCALE = 100.0


def options(ap):
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--readings", default=READINGS)
    ap.add_argument("--group", action="append", help="only these groups (repeatable)")
    ap.add_argument("--page", action="append", help="only pages whose name contains this (repeatable)")
    return ap


def load(args):
    """The manifest's pages that have both readings, each with `truth`, `truth_tokens` and
    `readings` (reader -> page JSON). Pages without both are listed on stderr and left out."""
    out, missing = [], []
    for page in score.selected_pages(args):
        readings = {}
        for reader in READERS:
            path = os.path.join(args.readings, reader, page["name"] + ".json")
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    readings[reader] = json.load(f)
        if len(readings) < len(READERS):
            missing.append(page["name"])
            continue
        for reader, reading in readings.items():
            for word in reading.get("words", []):
                c = word.get("confidence")
                if c is None or not 0 <= c <= RAW_SCALE:
                    sys.exit(f"{page['name']} {reader}: a word's confidence {c!r} is not on 0...100")
        with open(os.path.join(args.data, page["truth"]), encoding="utf-8") as f:
            page["truth"] = f.read()
        page["truth_tokens"] = score.tokens(page["truth"])
        page["readings"] = readings
        out.append(page)
    if missing:
        print(f"note: {len(missing)} pages lack a reading and are left out: {' '.join(missing[:8])}"
              f"{' ...' if len(missing) > 8 else ''}", file=sys.stderr)
    return out


def box(b):
    """[x0, y0, x1, y1] of a JSON box."""
    return (b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"])


def overlap(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0


def area(a):
    return max(0, a[2] - a[0]) * max(0, a[3] - a[1])


def reading_lines(reading):
    """The reading's lines in its own order: [{"box", "words": [word, ...]}], each word with its
    tokens (`score.tokens` of its text; a word of punctuation alone has none)."""
    lines = [{"box": box(l["box"]), "words": [], "index": i} for i, l in enumerate(reading.get("lines", []))]
    for word in reading.get("words", []):
        word = dict(word, tokens=score.tokens(word.get("text", "")), bbox=box(word["box"]))
        index = word.get("line")
        if index is None or not 0 <= index < len(lines):
            lines.append({"box": word["bbox"], "words": [word], "index": len(lines)})
        else:
            lines[index]["words"].append(word)
    return lines


# --- Labels ---------------------------------------------------------------------------------
#
# A word is right when its tokens are the truth's at the place its line reads. Each reading line
# is aligned on its own to the page's truth tokens, so the readers' line orders (columns, table
# cells, dropped text merged at the end) do not count: the line's longest run of tokens that
# also occurs in the truth (difflib) anchors it, and the line is then aligned token by token
# (difflib's matching blocks) to the truth within a window of the line's length plus SLACK
# tokens on either side of that anchor. A token matched in that alignment is right; each run
# of tokens left unmatched is aligned again the same way on its own, so a lone word is right
# when the truth has it anywhere on the page.
SLACK = 8


class Truth:
    def __init__(self, tokens):
        self.tokens = tokens
        self.where = {}
        for i, t in enumerate(tokens):
            self.where.setdefault(t, []).append(i)

    def anchor(self, line_tokens):
        """Start in the truth of the line's longest run found there (earliest), or None."""
        best_len, best_start, best_offset = 0, None, 0
        for j, t in enumerate(line_tokens):
            for i in self.where.get(t, ()):
                n = 1
                while (j + n < len(line_tokens) and i + n < len(self.tokens)
                       and self.tokens[i + n] == line_tokens[j + n]):
                    n += 1
                if n > best_len:
                    best_len, best_start, best_offset = n, i, j
            if best_len == len(line_tokens):
                break
        return None if best_start is None else best_start - best_offset

    def right(self, line_tokens):
        """Per token of a line, whether the alignment matches it to the truth."""
        flags = [False] * len(line_tokens)
        start = self.anchor(line_tokens)
        if start is None:
            return flags
        lo = max(0, start - SLACK)
        hi = min(len(self.tokens), start + len(line_tokens) + SLACK)
        matcher = difflib.SequenceMatcher(None, line_tokens, self.tokens[lo:hi], autojunk=False)
        for block in matcher.get_matching_blocks():
            for k in range(block.a, block.a + block.size):
                flags[k] = True
        # A line read across places the truth keeps apart (a table row read across cells the
        # truth lists column by column): each run left unmatched is aligned again on its own.
        k = 0
        while k < len(flags):
            if flags[k]:
                k += 1
                continue
            end = k
            while end < len(flags) and not flags[end]:
                end += 1
            if end - k < len(line_tokens):
                flags[k:end] = self.right(line_tokens[k:end])
            k = end
        return flags


def label_lines(lines, truth):
    """Sets each word's `right` (None for a word without tokens): all its tokens matched."""
    for line in lines:
        flat = [(w, t) for w in line["words"] for t in w["tokens"]]
        flags = truth.right([t for _, t in flat])
        by_word = {}
        for (w, _), ok in zip(flat, flags):
            by_word.setdefault(id(w), []).append(ok)
        for w in line["words"]:
            got = by_word.get(id(w))
            w["right"] = None if got is None else all(got)
    return lines


def bag_labels(words, truth_tokens):
    """The bag labelling, for comparison: a word's share of right = min(1, truth count / read
    count) of its token, so that the labels sum to the bag F1's matched tokens."""
    from collections import Counter
    t = Counter(truth_tokens)
    f = Counter(tok for w in words for tok in w["tokens"])
    out = []
    for w in words:
        if not w["tokens"]:
            out.append(None)
            continue
        out.append(sum(min(1.0, t[tok] / f[tok]) for tok in w["tokens"]) / len(w["tokens"]))
    return out


# --- Calibration ----------------------------------------------------------------------------


def interpolate(knots, raw):
    """P(right) at a raw confidence: linear between (raw, probability) knots, flat outside."""
    if raw <= knots[0][0]:
        return knots[0][1]
    for (x0, y0), (x1, y1) in zip(knots, knots[1:]):
        if raw <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (raw - x0) / (x1 - x0)
    return knots[-1][1]


def load_knots(path):
    with open(path, encoding="utf-8") as f:
        return {r: [tuple(k) for k in v] for r, v in json.load(f)["knots"].items()}


# --- CER without rapidfuzz ------------------------------------------------------------------


def levenshtein(a, b):
    """Edit distance by Myers' / Hyyrö's bit-parallel algorithm (Python integers as bit vectors):
    the same number as score.plain_levenshtein, in milliseconds on a page."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq = {}
    for i, ch in enumerate(b):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    mask = (1 << m) - 1
    last = 1 << (m - 1)
    pv, mv, dist = mask, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & last:
            dist += 1
        elif mh & last:
            dist -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return dist


def cer(truth, found):
    t, f = score.normalise(truth), score.normalise(found)
    return levenshtein(t, f) / max(1, len(t))


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None
