#!/usr/bin/env python3
"""Corrections arriving at `gloss serve` at a steady rate, over loopback: none may be lost.

Annotates the text fixtures (every format a correction rewrites), serves the batch, and for
--seconds sends --rate corrections a second, spread over the pages in turn. Each is a retype of
one word to a text never used before, sent against the page's version as the sender last saw
it; a 412 (another correction of the page got there first) is answered by loading the page
again and sending it anew, as the page view does. At the end it counts: every correction sent
is in the journal once, and every page's JSON, hOCR and text hold the last text each word was
given. Prints the rate achieved, the latency of each correction (from its due time to its 200)
and the counts; exits 1 if any is lost.

    bench/serve_corrections.py --gloss .build/release/gloss [--seconds 60] [--rate 20]
"""
import argparse
import collections
import http.client
import json
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ["text/sans.png", "text/serif.png", "text/mono.png", "text/two-pages.tif", "text/upright.jpg",
            "scans/page.png"]


def request(port, method, path, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gloss", default=str(ROOT / ".build/release/gloss"))
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rate", type=float, default=20)
    arguments = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="gloss-corrections-bench."))
    batch = work / "batch"
    run = subprocess.run([arguments.gloss, "annotate", *[str(ROOT / "fixtures" / f) for f in FIXTURES], "-o", str(batch),
                          "--no-faces", "-q", "--text", "fast", "--format", "html,json,hocr,alto,tsv,txt,page,pdf,iiif"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("gloss annotate failed: " + run.stderr)
    server = subprocess.Popen([arguments.gloss, "serve", str(batch), "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", line)
        if not found:
            sys.exit("gloss serve did not start: " + line)
        port, token = int(found.group(1)), found.group(2)
        pages = [p["id"] for p in json.loads((batch / "gloss.json").read_text())["pages"]]

        # One sender a page, each taking its page's corrections in the order they fall due.
        queues = {page: collections.deque() for page in pages}
        ready = threading.Condition()
        finished = False
        latencies, retries, failures, last_text = [], collections.Counter(), [], {}
        sent_texts = []

        def sender(page):
            status, data = request(port, "GET", "/api/pages/" + page)
            state = json.loads(data)
            version, words = state["version"], state["report"]["words"]
            while True:
                with ready:
                    while not queues[page] and not finished:
                        ready.wait()
                    if not queues[page]:
                        return
                    due, number = queues[page].popleft()
                index = number % len(words)
                word = words[index]
                text = "fix%05d" % number
                while True:
                    fix = {"page": page, "kind": "retype", "word": index,
                           "old": [{"text": word["text"], "box": word["box"]}],
                           "new": [{"text": text, "box": word["box"]}], "by": "bench", "at": "2026-12-05T12:00:00Z"}
                    status, data = request(port, "POST", "/api/corrections",
                                           {"X-Gloss-Token": token, "If-Match": '"%s"' % version,
                                            "Content-Type": "application/json"},
                                           json.dumps({"corrections": [fix]}).encode())
                    if status == 412:
                        retries[page] += 1
                        state = json.loads(request(port, "GET", "/api/pages/" + page)[1])
                        version, words = state["version"], state["report"]["words"]
                        word = words[index]
                        continue
                    break
                if status != 200:
                    failures.append((page, text, status, data[:200]))
                    continue
                version = json.loads(data)["version"]
                word["text"] = text
                last_text[(page, index)] = text
                latencies.append(time.monotonic() - due)

        threads = [threading.Thread(target=sender, args=(page,)) for page in pages]
        for thread in threads:
            thread.start()
        start = time.monotonic()
        total = int(arguments.seconds * arguments.rate)
        for number in range(total):
            due = start + number / arguments.rate
            time.sleep(max(0, due - time.monotonic()))
            with ready:
                queues[pages[number % len(pages)]].append((due, number))
                sent_texts.append("fix%05d" % number)
                ready.notify_all()
        with ready:
            finished = True
            ready.notify_all()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)

    journal = [json.loads(line) for line in (batch / "gloss.corrections").read_text().splitlines() if line.strip()]
    journaled = collections.Counter(c["new"][0]["text"] for c in journal if c.get("kind") == "retype")
    lost_journal = [t for t in sent_texts if journaled[t] != 1]
    entries = {p["id"]: p for p in json.loads((batch / "gloss.json").read_text())["pages"]}
    lost_pages = []
    for (page, index), text in last_text.items():
        entry = entries[page]
        report = json.loads((batch / entry["outputs"]["json"]).read_text())
        hocr = (batch / entry["outputs"]["hocr"]).read_text()
        txt = (batch / entry["outputs"]["txt"]).read_text()
        if report["words"][index]["text"] != text or text not in hocr or text not in txt:
            lost_pages.append((page, index, text))
    latencies.sort()
    quantile = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    print("%d corrections over %d pages in %.1f s (%.1f a second asked, %.1f achieved); %d retries after 412"
          % (total, len(pages), elapsed, arguments.rate, total / elapsed, sum(retries.values())))
    print("latency from due to applied: p50 %.0f ms, p99 %.0f ms, max %.0f ms" % (quantile(0.5), quantile(0.99), quantile(1)))
    print("journal: %d of %d sent, once each; pages: %d of %d last texts in JSON, hOCR and txt; failures %d"
          % (total - len(lost_journal), total, len(last_text) - len(lost_pages), len(last_text), len(failures)))
    for failure in failures[:5]:
        print("  failed:", failure)
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if lost_journal or lost_pages or failures else 0)


if __name__ == "__main__":
    main()
