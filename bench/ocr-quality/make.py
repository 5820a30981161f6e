#!/usr/bin/env python3
"""Re-create the OCR-quality data set (.build/ocr-data) from its sources.

Reads sources.json (which page comes from which repository, at which commit, with which
ground truth), takes every file from a bare git mirror at its pinned commit (this workplace's
`fetch` tool puts them under /work/.mirror/OWNER+NAME/repo), or, for OCRmyPDF, from its PyPI
source distribution when no mirror is there; checks each file's SHA-256; renders PDF pages with
poppler's pdftoppm; and writes

    OUT/NAME.EXT        the page image
    OUT/NAME.gt.txt     its ground truth, one line of text per line
    OUT/manifest.json   one entry per page: group, image, truth, provenance, licence, hashes

Usage: make.py [--out DIR] [--mirrors DIR] [--cache DIR] [--group G ...] [--skip-git] [--record]
"""
import argparse, hashlib, html.parser, io, json, os, shutil, subprocess, sys, tarfile, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class HocrText(html.parser.HTMLParser):
    """Collects the words of an hOCR file line by line (ocr_line / ocrx_word spans)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines = []
        self.stack = []  # class of every open element
        self.word = None

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        self.stack.append(cls)
        if cls in ("ocr_line", "ocr_caption", "ocr_header", "ocr_textfloat"):
            self.lines.append([])
        elif cls == "ocrx_word":
            self.word = []

    def handle_endtag(self, tag):
        if not self.stack:
            return
        cls = self.stack.pop()
        if cls == "ocrx_word" and self.word is not None:
            text = "".join(self.word).strip()
            if text:
                if not self.lines:
                    self.lines.append([])
                self.lines[-1].append(text)
            self.word = None

    def handle_data(self, data):
        if self.word is not None:
            self.word.append(data)

    def text(self):
        return "\n".join(" ".join(words) for words in self.lines if words) + "\n"


def hocr_to_text(data):
    parser = HocrText()
    parser.feed(data.decode("utf-8"))
    parser.close()
    return parser.text()


class Sources:
    def __init__(self, args, repos):
        self.args = args
        self.repos = repos
        self.sdists = {}

    def mirror(self, repo):
        return os.path.join(self.args.mirrors, repo.replace("/", "+"), "repo")

    def get(self, repo, path):
        commit = self.repos[repo]["commit"]
        root = self.mirror(repo)
        if os.path.isdir(root) and not self.args.skip_git:
            return subprocess.run(["git", "--git-dir", root, "show", f"{commit}:{path}"],
                                  check=True, capture_output=True).stdout
        pypi = self.repos[repo].get("pypi")
        if pypi:
            return self.from_sdist(pypi, path)
        raise FileNotFoundError(f"no git mirror of {repo} at {root} (fetch github:{repo})")

    def from_sdist(self, requirement, path):
        if requirement not in self.sdists:
            dest = os.path.join(self.args.cache, "pypi")
            os.makedirs(dest, exist_ok=True)
            name, version = requirement.split("==")
            found = [f for f in os.listdir(dest) if f.startswith(f"{name}-{version}") and f.endswith(".tar.gz")]
            if not found:
                subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", name,
                                "-d", dest, requirement], check=True)
                found = [f for f in os.listdir(dest) if f.startswith(f"{name}-{version}") and f.endswith(".tar.gz")]
            self.sdists[requirement] = tarfile.open(os.path.join(dest, found[0]))
        tar = self.sdists[requirement]
        member = next((m for m in tar.getmembers() if m.name.split("/", 1)[-1] == path), None)
        if member is None:
            raise FileNotFoundError(f"{path} is not in the {requirement} sdist")
        return tar.extractfile(member).read()


def halves(pages):
    """Each page's half, "tune" or "measure", from a SHA-256 of its name, balanced per group.

    Within a group the pages are ordered by the hash of their name and dealt out in turn, so
    each half holds half of every group (the odd page goes to "tune") and a page keeps its half
    however the pages are listed. Adding a page to a group can move that group's later pages.
    """
    by_group = {}
    for page in pages:
        by_group.setdefault(page["group"], []).append(page["name"])
    half = {}
    for names in by_group.values():
        for i, name in enumerate(sorted(names, key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())):
            half[name] = "tune" if i % 2 == 0 else "measure"
    return half


def render_pdf(data, render):
    """One PDF page as PNG bytes, rendered by pdftoppm at render['ppi'], in render['mode']."""
    from PIL import Image
    with tempfile.TemporaryDirectory() as tmp:
        pdf = os.path.join(tmp, "in.pdf")
        with open(pdf, "wb") as f:
            f.write(data)
        page = str(render["pdf_page"])
        subprocess.run(["pdftoppm", "-f", page, "-l", page, "-r", str(render["ppi"]), "-png", "-singlefile",
                        pdf, os.path.join(tmp, "out")], check=True)
        image = Image.open(os.path.join(tmp, "out.png")).convert(render["mode"])
        ppi = render["ppi"]
        out = io.BytesIO()
        image.save(out, "PNG", dpi=(ppi, ppi), optimize=False)
        return out.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, ".build", "ocr-data"))
    ap.add_argument("--mirrors", default=os.environ.get("MIRRORS", "/work/.mirror"))
    ap.add_argument("--cache", default=os.path.join(ROOT, ".build", "ocr-data-cache"))
    ap.add_argument("--group", action="append", help="make only these groups (repeatable)")
    ap.add_argument("--skip-git", action="store_true", help="use no git mirror (only what PyPI provides)")
    ap.add_argument("--record", action="store_true", help="write the source SHA-256s into sources.json")
    args = ap.parse_args()

    spec_path = os.path.join(HERE, "sources.json")
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    sources = Sources(args, spec["repos"])
    os.makedirs(args.out, exist_ok=True)
    manifest, skipped, mismatched = [], [], []
    half = halves(spec["pages"])  # over every page, so --group makes the same halves
    for page in spec["pages"]:
        if args.group and page["group"] not in args.group:
            continue
        repo = page["repo"]
        try:
            data = sources.get(repo, page["path"])
        except (FileNotFoundError, subprocess.CalledProcessError) as error:
            skipped.append(f"{page['name']}: {error}")
            continue
        digest = sha256(data)
        if args.record:
            page["source_sha256"] = digest
        elif page.get("source_sha256") and page["source_sha256"] != digest:
            mismatched.append(page["name"])
            continue
        render = page.get("render")
        if render:
            image = render_pdf(data, render)
            ext = "png"
        else:
            image = data
            ext = page["path"].rsplit(".", 1)[-1].lower()
        truth = page["truth"]
        if truth["kind"] == "typed":
            with open(os.path.join(HERE, truth["path"]), "rb") as f:
                text = f.read().decode("utf-8")
            truth_source = f"typed for this benchmark: bench/ocr-quality/{truth['path']}"
        else:
            raw = sources.get(repo, truth["path"])
            text = hocr_to_text(raw) if truth["kind"] == "hocr" else raw.decode("utf-8")
            truth_source = f"{repo} @ {spec['repos'][repo]['commit'][:12]}: {truth['path']} ({truth['kind']})"
        file = f"{page['name']}.{ext}"
        with open(os.path.join(args.out, file), "wb") as f:
            f.write(image)
        with open(os.path.join(args.out, f"{page['name']}.gt.txt"), "w", encoding="utf-8") as f:
            f.write(text)
        meta = spec["repos"][repo]
        manifest.append({
            "name": page["name"], "group": page["group"], "half": half[page["name"]], "image": file, "truth": f"{page['name']}.gt.txt",
            "tags": page.get("tags", []),
            "repo": repo, "commit": meta["commit"], "path": page["path"],
            "licence": page.get("licence") or meta.get("licence", ""),
            "redistributable": meta.get("redistributable", False),
            "render": render, "truth_source": truth_source,
            "source_sha256": digest, "sha256": sha256(image),
        })
    if args.record:
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=1, ensure_ascii=False)
            f.write("\n")
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    groups = {}
    for entry in manifest:
        groups[entry["group"]] = groups.get(entry["group"], 0) + 1
    print(f"{len(manifest)} pages in {args.out}: " + ", ".join(f"{g} {n}" for g, n in sorted(groups.items()))
          + f"; {sum(1 for e in manifest if e['half'] == 'tune')} tune, {sum(1 for e in manifest if e['half'] == 'measure')} measure")
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    if mismatched:
        print("SHA-256 mismatch, not written: " + ", ".join(mismatched), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
