#!/usr/bin/env python3
"""`gloss serve` as a viewer and a stranger use it, over loopback.

Annotates two fixtures, serves the batch on a free port of 127.0.0.1 and checks: the report's
files are served as they are, with CORS headers; `..`, an absolute path and a symbolic link
out of the batch are refused; it listens on 127.0.0.1 only; a write without the token is
refused and `--read-only` has no write route; a correction is applied against the version it
was made on (the page's files and the index change) and a stale one is refused with 412; the served manifest validates with iiif-prezi3
(validate.py's checks, on the documents as served); a Content Search response has the shape
the Content Search 2.0 specification gives it, and its hits are the words' boxes in the
canvas's pixels; autocomplete answers a TermPage. The last line is "N passed, N failed".

Run it with the virtual environment's interpreter (.build/venv/bin/python3), which has iiif_prezi3.
"""

import argparse
import http.client
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import validate  # noqa: E402  (the manifest checks, shared)

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEARCH_CONTEXT = "http://iiif.io/api/search/2/context.json"

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


class Served:
    """A `gloss serve` process and requests to it, the path sent exactly as given."""

    def __init__(self, gloss, folder, *extra):
        self.process = subprocess.Popen([gloss, "serve", str(folder), "--port", "0", *extra],
                                        stderr=subprocess.PIPE, text=True)
        self.lines = []
        while True:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError("gloss serve stopped: %s" % "".join(self.lines))
            self.lines.append(line)
            found = re.search(r"serving .* at (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        parts = urllib.parse.urlsplit(self.url)
        self.host, self.port = parts.hostname, parts.port
        self.token = urllib.parse.parse_qs(parts.query).get("token", [None])[0]

    def request(self, method, path, headers=None, body=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        connection.putrequest(method, path, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, dict((k.lower(), v) for k, v in response.getheaders()), data

    def json(self, path):
        status, _, data = self.request("GET", path)
        if status != 200:
            raise RuntimeError("%s: %d %s" % (path, status, data[:200]))
        return json.loads(data)

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        self.lines += self.process.stderr.readlines()
        return self.process.returncode


def listening_addresses(port):
    """The local addresses of sockets listening on `port`, from /proc/net/tcp and tcp6."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for line in open(table).read().splitlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].rsplit(":", 1)
            if int(hex_port, 16) == port and fields[3] == "0A":
                found.append(address)
    return found


def search_shape(page, url):
    """Every way an AnnotationPage of search results breaks Content Search 2.0 (section 4.2)."""
    problems = []
    if page.get("@context") != SEARCH_CONTEXT:
        problems.append("@context is %r" % page.get("@context"))
    if page.get("type") != "AnnotationPage":
        problems.append("type is %r" % page.get("type"))
    if not isinstance(page.get("id"), str) or not page["id"].startswith("http"):
        problems.append("no absolute id")
    if not isinstance(page.get("items"), list):
        problems.append("items is not a list")
    for item in page.get("items", []):
        if item.get("type") != "Annotation" or not item.get("id"):
            problems.append("an item is not an Annotation with an id")
        if item.get("motivation") != "highlighting":
            problems.append("motivation %r" % item.get("motivation"))
        body = item.get("body", {})
        if body.get("type") != "TextualBody" or not isinstance(body.get("value"), str):
            problems.append("a body is not a TextualBody")
        if not re.fullmatch(r"http\S+#xywh=\d+,\d+,\d+,\d+", item.get("target", "")):
            problems.append("target %r is not canvas#xywh" % item.get("target"))
    part = page.get("partOf")
    if part is not None:  # paged: 4.2.2
        if part.get("type") != "AnnotationCollection" or not part.get("id"):
            problems.append("partOf is not an AnnotationCollection with an id")
        for key in ("first", "last"):
            reference = part.get(key)
            if key == "first" and reference is None:
                problems.append("partOf has no first")
            if reference is not None and (reference.get("type") != "AnnotationPage" or not reference.get("id")):
                problems.append("partOf.%s is not a reference to an AnnotationPage" % key)
        for key in ("next", "prev"):
            reference = page.get(key)
            if reference is not None and (reference.get("type") != "AnnotationPage" or not reference.get("id")):
                problems.append("%s is not a reference to an AnnotationPage" % key)
        if part.get("last", {}).get("id") != page["id"] and "next" not in page:
            problems.append("a page before the last has no next")
    if "ignored" in page and not all(isinstance(name, str) for name in page["ignored"]):
        problems.append("ignored is not a list of names")
    return problems


def corrections(served, batch, pages):
    """A correction over loopback: the page loaded with its version, corrected, the files and the
    index changed; a second tab at the old version refused with the version to load."""
    status, _, data = served.request("GET", "/api/status")
    check("/api/status says the server takes corrections", status == 200 and json.loads(data) == {"writable": True},
          "%d %r" % (status, data))
    entry = next(page for page in pages if page["source"].endswith("sans.png"))
    status, headers, _ = served.request("GET", "/" + entry["outputs"]["html"])
    check("a page view is sent no-cache, since a correction writes it again", headers.get("cache-control") == "no-cache",
          repr(headers))
    status, headers, data = served.request("GET", "/api/pages/" + entry["id"])
    loaded = json.loads(data) if status == 200 else {}
    version = loaded.get("version", "")
    check("/api/pages/ID gives the page's JSON and its version as ETag",
          status == 200 and headers.get("etag") == '"%s"' % version
          and loaded["report"] == json.loads((batch / entry["outputs"]["json"]).read_text()), "%d %r" % (status, data[:200]))
    word = loaded["report"]["words"][1]
    before = re.findall(r'CONTENT="([^"]*)"', (batch / entry["outputs"]["alto"]).read_text())
    fix = {"page": entry["id"], "kind": "retype", "word": 1, "old": [{"text": word["text"], "box": word["box"]}],
           "new": [{"text": "Zanzibar", "box": word["box"]}], "by": "Ana", "at": "2026-12-05T12:00:00Z"}
    body = json.dumps({"corrections": [fix]}).encode()
    write = {"Authorization": "Bearer " + served.token, "Content-Type": "application/json"}
    status, _, data = served.request("POST", "/api/corrections", write, body)
    check("a correction without If-Match is refused (428)", status == 428, "%d %r" % (status, data))
    status, headers, data = served.request("POST", "/api/corrections", dict(write, **{"If-Match": '"%s"' % version}), body)
    answer = json.loads(data) if status == 200 else {}
    check("a correction with its version is applied, with the new version as ETag",
          status == 200 and answer.get("version") not in (None, version) and headers.get("etag") == '"%s"' % answer["version"]
          and headers.get("access-control-allow-origin") is None, "%d %r" % (status, data[:200]))
    alto = (batch / entry["outputs"]["alto"]).read_text()
    contents = re.findall(r'CONTENT="([^"]*)"', alto)
    check("the corrected word is in the page's files, the word it replaced gone",
          "Zanzibar" in contents and contents.count(word["text"]) == before.count(word["text"]) - 1, repr(contents[:12]))
    found = subprocess.run([served.process.args[0], "search", str(batch), "Zanzibar"], capture_output=True, text=True)
    check("gloss search finds the corrected word", found.returncode == 0 and "Zanzibar" in found.stdout, found.stderr)
    status, _, data = served.request("POST", "/api/corrections", dict(write, **{"If-Match": '"%s"' % version}), body)
    check("a second tab at the old version gets 412 and the version to load",
          status == 412 and json.loads(data).get("version") == answer.get("version"), "%d %r" % (status, data[:200]))
    journal = (batch / "gloss.corrections").read_text().splitlines()
    check("the journal holds the one correction applied", len(journal) == 1 and "Zanzibar" in journal[0], repr(journal))

    # A PDF input's page: its document is grafted again, with the corrected word.
    entry = next(page for page in pages if page["source"].endswith("scanned.pdf"))
    _, _, data = served.request("GET", "/api/pages/" + entry["id"])
    loaded = json.loads(data)
    texts = [w["text"] for w in loaded["report"]["words"]]
    index, word = next((i, w) for i, w in enumerate(loaded["report"]["words"])
                       if len(w["text"]) > 3 and w["text"].isalpha() and texts.count(w["text"]) == 1)
    fix = {"page": entry["id"], "kind": "retype", "word": index, "old": [{"text": word["text"], "box": word["box"]}],
           "new": [{"text": "Quetzal", "box": word["box"]}], "by": "Ana", "at": "2026-12-05T12:00:00Z"}
    status, _, data = served.request("POST", "/api/corrections", dict(write, **{"If-Match": '"%s"' % loaded["version"]}),
                                     json.dumps({"corrections": [fix]}).encode())
    answer = json.loads(data) if status == 200 else {}
    document = batch / entry["outputs"]["document"]
    page = str(entry["pageIndex"] + 1)
    text = subprocess.run(["pdftotext", "-f", page, "-l", page, str(document), "-"], capture_output=True, text=True).stdout.split()
    check("a PDF input's document is grafted again with the corrected word",
          status == 200 and answer.get("notRewritten") == [] and entry["outputs"]["document"] in answer.get("rewritten", [])
          and "Quetzal" in text and word["text"] not in text, "%d %r %r" % (status, data[:300], text[:20]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gloss", required=True)
    parser.add_argument("--artifacts", default=str(ROOT / ".build/serve-test"))
    arguments = parser.parse_args()
    artifacts = pathlib.Path(arguments.artifacts)
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    batch = artifacts / "batch"
    run = subprocess.run([arguments.gloss, "annotate", str(ROOT / "fixtures/text/two-pages.tif"),
                          str(ROOT / "fixtures/text/sans.png"), str(ROOT / "fixtures/pdf/scanned.pdf"), "-o", str(batch),
                          "--no-faces", "-q",
                          "--format", "html,json,alto,hocr,pdf,iiif", "--text", "fast"], capture_output=True, text=True)
    if run.returncode != 0:
        print("gloss annotate failed: %s" % run.stderr)
        print("0 passed, 1 failed")
        sys.exit(1)
    (artifacts / "secret.txt").write_text("outside the batch\n")
    os.symlink("../secret.txt", batch / "pages/out.txt")
    pages = json.loads((batch / "gloss.json").read_text())["pages"]

    served = Served(arguments.gloss, batch)
    try:
        # Files as they are, with CORS headers.
        status, headers, data = served.request("GET", "/index.html")
        check("serves index.html as written, with CORS", status == 200 and data == (batch / "index.html").read_bytes()
              and headers.get("access-control-allow-origin") == "*", "%d %s" % (status, headers))
        alto = pages[0]["outputs"]["alto"]
        status, headers, data = served.request("GET", "/" + alto)
        check("serves a page's ALTO", status == 200 and data == (batch / alto).read_bytes()
              and headers.get("content-type") == "application/xml")
        status, _, _ = served.request("OPTIONS", "/iiif/manifest.json", {"Origin": "https://viewer.example"})
        check("answers a CORS preflight", status == 204)

        # Confinement.
        for path, name in (("/../secret.txt", "'..'"), ("/pages/../../secret.txt", "'..' further in"),
                           ("/%2e%2e/secret.txt", "an escaped '..'"), ("//etc/passwd", "an absolute path"),
                           ("/pages/out.txt", "a symbolic link out of the batch")):
            status, _, data = served.request("GET", path)
            check("refuses %s" % name, status in (403, 404) and b"outside" not in data and b"root:" not in data
                  and len(data.split(b":", 1)) == 2, "%d %r" % (status, data[:120]))
        check("listens on 127.0.0.1 by default", served.host == "127.0.0.1"
              and listening_addresses(served.port) == ["0100007F"], repr(listening_addresses(served.port)))

        # Writes.
        status, _, data = served.request("POST", "/api/corrections", {"Content-Type": "application/json"}, b"{}")
        check("refuses a write without the token", status == 401, "%d %r" % (status, data))
        status, _, data = served.request("POST", "/api/corrections", {"Authorization": "Bearer " + "0" * 32}, b"{}")
        check("refuses a write with a wrong token", status == 401, "%d %r" % (status, data))
        status, _, data = served.request("POST", "/api/corrections", {"Authorization": "Bearer " + served.token,
                                                                      "If-Match": "*"}, b"{}")
        check("a write with the token reaches the corrections route", status == 400 and b"corrections" in data,
              "%d %r" % (status, data))
        corrections(served, batch, pages)
        # Announced larger than the limit: answered before the body is sent.
        status, _, data = served.request("POST", "/api/corrections", {"Authorization": "Bearer " + served.token,
                                                                      "Content-Length": str(2 << 20)})
        check("refuses a request body over the limit", status == 413, "%d %r" % (status, data[:100]))

        # The manifest, as served, validated as validate.py validates a written batch.
        base = served.url.split("?")[0]
        manifest = served.json("/iiif/manifest.json")
        mirror = artifacts / "mirror"
        shutil.copytree(batch, mirror, symlinks=True)
        shutil.rmtree(mirror / "iiif", ignore_errors=True)
        (mirror / "iiif/annotations").mkdir(parents=True)
        (mirror / "iiif/manifest.json").write_text(json.dumps(manifest))
        for canvas in manifest["items"]:
            for reference in canvas.get("annotations", []):
                path = urllib.parse.urlsplit(reference["id"]).path
                (mirror / path.lstrip("/")).write_text(json.dumps(served.json(path)))
        found = validate.problems(validate.Batch(mirror, base))
        check("the served manifest validates with iiif-prezi3", not found, "; ".join(found[:5]))
        service = (manifest.get("service") or [{}])[0]
        check("the manifest names its search and autocomplete services",
              service.get("type") == "SearchService2" and service.get("id") == base + "iiif/search"
              and service.get("service", [{}])[0].get("type") == "AutoCompleteService2")
        links = [link for canvas in manifest["items"] for link in canvas.get("seeAlso", []) + canvas.get("rendering", [])]
        check("each canvas links its ALTO, hOCR and PDF, files of the batch",
              len(links) == 3 * len(manifest["items"]) and all(
                  (batch / urllib.parse.urlsplit(link["id"]).path.lstrip("/")).is_file() for link in links))

        # Content Search: the words' boxes, in the canvas's pixels.
        word = next(w for page in pages for w in json.loads((batch / page["outputs"]["json"]).read_text())["words"]
                    if len(w["text"]) > 3 and w["text"].isalpha())
        results = served.json("/iiif/search?" + urllib.parse.urlencode({"q": word["text"], "motivation": "painting"}))
        check("a search response has Content Search 2.0's shape", not search_shape(results, base),
              "; ".join(search_shape(results, base)))
        check("a search lists the parameters it ignores", results.get("ignored") == ["motivation"])
        boxes = {}
        for page in pages:
            report = json.loads((batch / page["outputs"]["json"]).read_text())
            for w in report["words"]:
                box = w["box"]
                boxes.setdefault(w["text"].lower(), set()).add(
                    "%siiif/canvas/%s#xywh=%d,%d,%d,%d" % (base, page["id"], box["x"], box["y"], box["width"], box["height"]))
        targets = {item["target"] for item in results["items"]}
        check("its hits are the words' boxes in the canvas's pixels", targets and targets <= boxes[word["text"].lower()],
              "%s vs %s" % (sorted(targets)[:3], sorted(boxes[word["text"].lower()])[:3]))
        canvases = {canvas["id"]: canvas for canvas in manifest["items"]}
        check("every hit lies on a canvas of the manifest", all(
            item["target"].split("#")[0] in canvases for item in results["items"]))
        status, _, data = served.request("GET", "/iiif/search?q=cat%20AND")
        check("a query FTS5 cannot read is a 400 with its reason", status == 400 and b"invalid query" in data,
              "%d %r" % (status, data))
        terms = served.json("/iiif/autocomplete?q=" + urllib.parse.quote(word["text"][:2].lower()))
        check("autocomplete answers a TermPage of terms starting so",
              terms.get("type") == "TermPage" and terms.get("@context") == SEARCH_CONTEXT and terms["items"]
              and all(t["value"].startswith(word["text"][:2].lower()) and t["total"] >= 1 for t in terms["items"]))
    finally:
        code = served.stop()
    check("Ctrl-C stops it cleanly", code == 0 and any("stopped" in line for line in served.lines), "".join(served.lines))

    # Read-only: no write route at all, even with a token; no lock taken.
    read_only = Served(arguments.gloss, batch, "--read-only")
    try:
        check("--read-only prints no token", read_only.token is None, read_only.url)
        status, _, data = read_only.request("POST", "/api/corrections", {"Authorization": "Bearer x"}, b"{}")
        check("--read-only has no write route", status == 405 and b"read-only" in data, "%d %r" % (status, data))
        status, _, data = read_only.request("GET", "/api/status")
        check("--read-only says it takes no corrections", status == 200 and json.loads(data) == {"writable": False})
        holder = subprocess.Popen([arguments.gloss, "serve", str(batch), "--port", "0"], stderr=subprocess.PIPE, text=True)
        line = holder.stderr.readline()
        # A writer serve beside a read-only one is allowed: only writers take the lock.
        check("a read-only serve does not take the folder's lock", "serving" in line, line)
        second = subprocess.run([arguments.gloss, "serve", str(batch), "--port", "0"], capture_output=True, text=True,
                                timeout=30)
        check("a second writer is refused, and told why", second.returncode == 2 and "--read-only" in second.stderr
              and "annotate" in second.stderr, second.stderr)
        holder.send_signal(signal.SIGINT)
        holder.wait(timeout=20)
    finally:
        read_only.stop()

    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
