#!/usr/bin/env python3
"""Validates Gloss's IIIF output against the Presentation 3.0 model of iiif-prezi3.

With --gloss it annotates the fixtures twice, with --iiif-base and without: the first must
validate, the second must hold no manifest (relative ids are not valid IIIF); then it checks that broken copies of the first batch are refused, so the checks
themselves are known to fail on a wrong manifest. With --batch it checks one folder.

For each batch: the manifest and every annotation page load as iiif_prezi3's pydantic models
(Manifest, AnnotationPage); every annotation page a canvas refers to is a file of the batch;
every target names a canvas of the manifest; every xywh lies inside its canvas; every painted
image is a file of the batch with the size the manifest gives; every seeAlso and rendering is
a file of the batch. Relative ids are resolved
against the URL of the file that holds them, as a JSON-LD processor does, before the models
see them. The last line is "N passed, N failed".

Run it with the interpreter of the virtual environment that `make setup` makes
(.build/venv/bin/python3); without iiif_prezi3 it says so and fails.
"""

import argparse
import copy
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse

try:
    from iiif_prezi3 import AnnotationPage, Manifest
except ImportError:
    print("iiif_prezi3 is missing: run make setup and use .build/venv/bin/python3")
    print("0 passed, 1 failed")
    sys.exit(1)

ROOT = pathlib.Path(__file__).resolve().parent.parent
BASE = "https://archive.example/batch1/"


def absolute(document, url):
    """The document with every id, target, and @context entry resolved against `url`."""
    if isinstance(document, list):
        return [absolute(item, url) for item in document]
    if not isinstance(document, dict):
        return document
    resolved = {}
    for key, value in document.items():
        if key in ("id", "target") and isinstance(value, str):
            resolved[key] = urllib.parse.urljoin(url, value)
        elif key == "@context":
            resolved[key] = ([urllib.parse.urljoin(url, item) for item in value] if isinstance(value, list)
                             else urllib.parse.urljoin(url, value))
        else:
            resolved[key] = absolute(value, url)
    return resolved


def picture_size(path):
    """(width, height, media type) of a PNG or baseline/progressive JPEG, read from its header."""
    data = pathlib.Path(path).read_bytes()
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24]) + ("image/png",)
    if data[:2] == b"\xff\xd8":
        at = 2
        while at + 4 <= len(data) and data[at] == 0xFF:
            marker, length = data[at + 1], struct.unpack(">H", data[at + 2:at + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[at + 5:at + 9])
                return (width, height, "image/jpeg")
            at += 2 + length
    return None


class Batch:
    """A batch folder and where it is published: `base`, or its own file:// URL."""

    def __init__(self, folder, base=None):
        self.folder = pathlib.Path(folder)
        self.base = base or self.folder.resolve().as_uri() + "/"

    def path_of(self, url):
        """The file of the batch a URL names, or None for one outside the batch."""
        url = urllib.parse.urldefrag(url)[0]
        if not url.startswith(self.base):
            return None
        return self.folder / urllib.parse.unquote(url[len(self.base):])

    def load(self, relative):
        path = self.folder / relative
        with open(path, encoding="utf-8") as handle:
            return absolute(json.load(handle), self.base + relative)


def problems(batch):
    """Every way the batch's IIIF output breaks the model or its own references."""
    found = []
    try:
        manifest = batch.load("iiif/manifest.json")
        Manifest(**manifest)
    except Exception as error:  # pydantic's ValidationError, or a file that is not JSON
        return ["manifest: %s" % str(error).splitlines()[0]]
    if manifest.get("id") != batch.base + "iiif/manifest.json":
        found.append("manifest id %r is not the manifest's URL" % manifest.get("id"))
    context = manifest.get("@context")
    last = context[-1] if isinstance(context, list) else context
    if last != "http://iiif.io/api/presentation/3/context.json":
        found.append("the Presentation 3 context is not the last of the manifest's")
    # iiif_prezi3 turns a plain string into a language map as it loads one; the file must hold the map.
    for resource in [manifest] + manifest["items"]:
        label = resource.get("label")
        if not (isinstance(label, dict) and label and all(isinstance(v, list) for v in label.values())):
            found.append("%s: label %r is not a language map" % (resource.get("id"), label))
    canvases = {canvas["id"]: canvas for canvas in manifest["items"]}
    if len(canvases) != len(manifest["items"]):
        found.append("two canvases share an id")

    def check_target(where, target):
        canvas_id, _, fragment = target.partition("#")
        canvas = canvases.get(canvas_id)
        if canvas is None:
            found.append("%s: target %s is no canvas of the manifest" % (where, target))
            return
        if not fragment:
            return
        if not fragment.startswith("xywh="):
            found.append("%s: target %s is not xywh" % (where, target))
            return
        x, y, w, h = (int(part) for part in fragment[5:].split(","))
        if x < 0 or y < 0 or w <= 0 or h <= 0 or x + w > canvas["width"] or y + h > canvas["height"]:
            found.append("%s: %s lies outside its %dx%d canvas" % (where, fragment, canvas["width"], canvas["height"]))

    for canvas in manifest["items"]:
        # The model allows a canvas without a size; a canvas painted with a page image needs one.
        if not all(isinstance(canvas.get(side), int) and canvas[side] > 0 for side in ("width", "height")):
            found.append("%s: no width and height" % canvas["id"])
            canvas.setdefault("width", 0)
            canvas.setdefault("height", 0)
        for page in canvas["items"]:
            for annotation in page["items"]:
                check_target(annotation["id"], annotation["target"])
                body = annotation["body"]
                image = batch.path_of(body["id"])
                if image is None or not image.is_file():
                    found.append("%s: the image %s is not a file of the batch" % (canvas["id"], body["id"]))
                elif picture_size(image) != (body.get("width"), body.get("height"), body.get("format")):
                    found.append("%s: the image is %s, the manifest says %sx%s %s"
                                 % (canvas["id"], picture_size(image), body.get("width"), body.get("height"),
                                    body.get("format")))
        for link in canvas.get("seeAlso", []) + canvas.get("rendering", []):
            path = batch.path_of(link["id"])
            if path is None or not path.is_file():
                found.append("%s: %s is not a file of the batch" % (canvas["id"], link["id"]))
        for reference in canvas.get("annotations", []):
            path = batch.path_of(reference["id"])
            if path is None or not path.is_file():
                found.append("%s: annotation page %s is not a file of the batch" % (canvas["id"], reference["id"]))
                continue
            relative = path.relative_to(batch.folder).as_posix()
            try:
                page = batch.load(relative)
                AnnotationPage(**page)
            except Exception as error:
                found.append("%s: %s" % (relative, str(error).splitlines()[0]))
                continue
            if page["id"] != reference["id"]:
                found.append("%s: its id %s is not the id the canvas gives" % (relative, page["id"]))
            for annotation in page["items"]:
                check_target(annotation["id"], annotation["target"])
                granularity = annotation.get("textGranularity")
                if granularity and "http://iiif.io/api/extension/text-granularity/context.json" not in page["@context"]:
                    found.append("%s: textGranularity without its context" % relative)
                if any(":" in key and not key.startswith("@") for key in annotation) and len(page["@context"]) < 2:
                    found.append("%s: a prefixed term without a context for it" % relative)
    return found


def annotate(gloss, output, extra):
    inputs = [str(ROOT / "fixtures/text/two-pages.tif"), str(ROOT / "fixtures/faces/astronaut-trio.png"),
              str(ROOT / "fixtures/bad/empty.png")]
    run = subprocess.run([gloss, "annotate", *inputs, "-o", str(output), "--quiet", "--text", "fast", *extra],
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise RuntimeError("gloss annotate failed (%d): %s" % (run.returncode, run.stderr))


def broken_copies(folder):
    """Copies of a good batch, each wrong in one way the checks must catch."""
    manifest_path = folder / "iiif/manifest.json"
    manifest = json.loads(manifest_path.read_text())

    def without_width(document):
        del document["items"][0]["width"]

    def with_a_missing_page(document):
        document["items"][0]["annotations"].append({"id": document["items"][0]["annotations"][0]["id"] + ".gone",
                                                    "type": "AnnotationPage"})

    def with_a_plain_label(document):
        document["label"] = "not a language map"

    def with_a_smaller_canvas(document):
        document["items"][0]["width"] = 10

    def with_a_wrong_image_size(document):
        document["items"][0]["items"][0]["items"][0]["body"]["width"] += 1

    def with_a_canvas_of_another_type(document):
        document["items"][0]["type"] = "Page"

    def with_a_missing_alto(document):
        document["items"][0]["seeAlso"][0]["id"] += ".gone"

    for change in (without_width, with_a_missing_page, with_a_plain_label, with_a_canvas_of_another_type, with_a_smaller_canvas, with_a_wrong_image_size, with_a_missing_alto):
        broken = copy.deepcopy(manifest)
        change(broken)
        yield change.__name__, {"iiif/manifest.json": broken}

    words = sorted((folder / "iiif/annotations").glob("*-words.json"))[0]
    page = json.loads(words.read_text())
    other = copy.deepcopy(page)
    other["items"][0]["target"] = other["items"][0]["target"].split("#")[0] + "-elsewhere#xywh=0,0,1,1"
    yield "with_a_target_on_no_canvas", {words.relative_to(folder).as_posix(): other}
    untyped = copy.deepcopy(page)
    del untyped["items"][0]["target"]
    yield "with_an_annotation_without_target", {words.relative_to(folder).as_posix(): untyped}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gloss", help="the gloss binary: annotate the fixtures and check those batches")
    parser.add_argument("--batch", help="a batch folder to check")
    parser.add_argument("--base", help="the --iiif-base the batch was written with")
    parser.add_argument("--artifacts", default=str(ROOT / ".build/iiif-test"))
    arguments = parser.parse_args()

    passed = failed = 0

    def report(name, found, expect_problems=False):
        nonlocal passed, failed
        ok = bool(found) if expect_problems else not found
        if ok:
            passed += 1
            print("ok   %s" % name)
        else:
            failed += 1
            print("FAIL %s" % name)
            for problem in (found or ["no problem found in a batch that is wrong"])[:10]:
                print("     %s" % problem)

    if arguments.batch:
        report(arguments.batch, problems(Batch(arguments.batch, arguments.base)))
    if arguments.gloss:
        artifacts = pathlib.Path(arguments.artifacts)
        shutil.rmtree(artifacts, ignore_errors=True)
        artifacts.mkdir(parents=True)
        absolute_batch, relative_batch = artifacts / "absolute", artifacts / "relative"
        annotate(arguments.gloss, absolute_batch, ["--iiif-base", BASE, "--format", "html,json,alto,hocr,pdf"])
        annotate(arguments.gloss, relative_batch, ["--format", "json,iiif"])
        report("a batch with --iiif-base", problems(Batch(absolute_batch, BASE)))
        index = (absolute_batch / "index.html").read_text()
        report("its index.html links the manifest", [] if 'href="iiif/manifest.json"' in index else ["no link"])
        report("a batch without --iiif-base has no manifest",
               ["%s exists" % (relative_batch / "iiif")] if (relative_batch / "iiif").exists() else [])
        for name, replacements in broken_copies(absolute_batch):
            with tempfile.TemporaryDirectory(dir=artifacts) as scratch:
                broken = pathlib.Path(scratch) / "batch"
                shutil.copytree(absolute_batch, broken)
                for relative, document in replacements.items():
                    (broken / relative).write_text(json.dumps(document))
                report("refuses a manifest %s" % name.replace("_", " "), problems(Batch(broken, BASE)), expect_problems=True)
    if not arguments.batch and not arguments.gloss:
        parser.error("give --gloss or --batch")
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
