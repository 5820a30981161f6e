#!/usr/bin/python3
"""Proofreading in the page view, in headless Chromium, offline (file://) and served.

    /usr/bin/python3 tests-browser/test_proofreading.py --gloss .build/release/gloss
        [--artifacts DIR]

Offline: a reviewer steps to a word with ] and retypes it, joins, splits, deletes and adds
words and marks the page reviewed; "Save corrections" downloads one file, `gloss correct`
applies it, and the page loaded again shows the corrections; `gloss search` finds the
corrected word and not the wrong one; the hOCR, ALTO, PAGE, text and PDF text layer hold it.
Served (`gloss serve`, its /api/status writable): a word corrected is saved at once
and shows after a reload; a second tab left on the old version gets the conflict message;
the same edit exported offline and applied with `gloss correct` gives the same page JSON
words. Reuses test_viewer.py's helpers. The last line is "N passed, N failed".
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_viewer as viewer  # noqa: E402  (skips the run when Selenium is missing)
from test_viewer import Failure, Run, Skipped, check, load  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ROOT = viewer.ROOT
FORMATS = "html,json,hocr,alto,page,tsv,txt,pdf"
NEW = "Quixotic"  # what "quick" (word 1 of sans.png) is corrected to


def annotate(gloss, work, name):
    folder = os.path.join(work, name)
    inputs = os.path.join(work, "in")
    if not os.path.isdir(inputs):
        os.makedirs(inputs)
        shutil.copy(os.path.join(ROOT, "fixtures/text/sans.png"), inputs)
    manifest = viewer.annotate_report("proofreading test", gloss, ["in", "-o", name, "--format", FORMATS],
                                      cwd=work, statuses=(0,))
    entry = manifest["pages"][0]
    return folder, entry


def page_json(folder, entry):
    return json.load(open(os.path.join(folder, entry["outputs"]["json"])))


def texts(report):
    return [word["text"] for word in report["words"]]


def run_gloss(gloss, *arguments, cwd=None):
    return subprocess.run([os.path.abspath(gloss), *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                          text=True, env=dict(os.environ, OMP_THREAD_LIMIT="1"))


def search_hits(gloss, folder, query):
    result = run_gloss(gloss, "search", folder, query, "--json")
    if result.returncode not in (0, 1):
        raise Failure("gloss search exited %d: %s" % (result.returncode, result.stderr))
    return result.stdout


class Served:
    """`gloss serve DIR` on a free port, and its start-up URL (with the token). Like
    tests-iiif/test_serve.py's, which cannot be imported here: its module needs the venv's
    iiif_prezi3, and the browser tests run on the system's Python with its Selenium."""

    def __init__(self, gloss, folder):
        self.process = subprocess.Popen([os.path.abspath(gloss), "serve", folder, "--port", "0"],
                                        stderr=subprocess.PIPE, text=True)
        lines = []
        while True:
            line = self.process.stderr.readline()
            if not line:
                raise Failure("gloss serve stopped: " + "".join(lines))
            lines.append(line)
            found = re.search(r"serving .* at (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        parts = urllib.parse.urlsplit(self.url)
        self.base = "%s://%s/" % (parts.scheme, parts.netloc)
        self.token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]

    def writable(self):
        try:
            with urllib.request.urlopen(self.base + "api/status", timeout=10) as response:
                return json.load(response).get("writable") is True
        except Exception:
            return False

    def stop(self):
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", default=os.path.join(ROOT, ".build/release/gloss"))
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/browser-test"))
    parser.add_argument("--screenshots", help="write docs/proofreading.md's picture here (proofreading.png)")
    args = parser.parse_args()

    chromium, driver_path = viewer.browser_tools()
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gloss-proof-")
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads)
    offline, entry = annotate(args.gloss, work, "offline")
    before = page_json(offline, entry)
    check(texts(before)[1] == "quick" and texts(before)[2] == "brown", "sans.png's words 1-2 are 'quick brown': %r" % texts(before)[:4])
    page_url = "file://" + urllib.parse.quote(os.path.join(offline, entry["outputs"]["html"]))

    driver = viewer.browser(chromium, driver_path)
    driver.set_window_size(1400, 900)
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
    run = Run(args)

    def js(script, *arguments):
        return driver.execute_script(script, *arguments)

    def keys(*sequence):
        ActionChains(driver).send_keys(*sequence).perform()

    def word_text(index):
        return js("var s = document.querySelector('#page-text .w[data-i=\"%d\"]'); return s ? s.textContent : null;" % index)

    def status():
        return js("return document.getElementById('proof-status').textContent")

    def set_name(name):
        field = driver.find_element(By.ID, "reviewer")
        field.clear()
        field.send_keys(name, Keys.ENTER)

    def click_word(index):
        ActionChains(driver).move_to_element(driver.find_element(By.ID, "w%d" % index)).click().perform()

    def edit_word(index, text):
        """Clicks word `index` on the scan and types `text` in its editor."""
        click_word(index)
        editor = driver.find_element(By.CSS_SELECTOR, ".word-editor")
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys(text, Keys.ENTER)

    def picture(target):
        """The page view as a reviewer sees it mid-correction, small, for the docs."""
        from PIL import Image
        raw = os.path.join(args.artifacts, "proofreading-raw.png")
        driver.save_screenshot(raw)
        image = Image.open(raw).convert("RGB")
        image = image.resize((int(image.width * 0.6), int(image.height * 0.6)), Image.LANCZOS)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        image.quantize(colors=128, method=Image.MEDIANCUT, dither=Image.NONE).save(target, optimize=True)
        print("     wrote %s (%d KB)" % (target, os.path.getsize(target) // 1024))

    def kept():
        return js("var out = []; for (var k = 0; k < localStorage.length; k++) {"
                  " var key = localStorage.key(k); if (key.indexOf('gloss.corrections ') === 0) out.push(JSON.parse(localStorage.getItem(key))); }"
                  " return out;")

    def offline_edits():
        load(driver, page_url)
        js("localStorage.clear()")
        load(driver, page_url)
        check(js("return document.body.getAttribute('data-page')") == entry["id"], "the page view knows its page id")
        version = js("return document.body.getAttribute('data-version')")
        actual = hashlib.sha256(open(os.path.join(offline, entry["outputs"]["json"]), "rb").read()).hexdigest()[:16]
        check(version == actual, "the page view's version %r is the JSON file's %r" % (version, actual))
        check(js("return !document.getElementById('proof').hidden"), "the proofreading actions are shown offline")
        set_name("Ana")
        check(js("return localStorage.getItem('gloss.reviewer')") == "Ana", "the reviewer's name is kept")
        # Step, fix, step: every word under 97% is flagged; ] goes to the first, Enter edits it.
        js("var s = document.getElementById('min-confidence'); s.value = 97; s.dispatchEvent(new Event('input'));")
        scroll = js("var v = document.getElementById('viewer'); return [v.scrollLeft, v.scrollTop];")
        flagged = int(js("return document.getElementById('low-count').textContent").split()[0])
        keys("]")
        first = js("return document.activeElement.getAttribute('data-i')")
        check(first is not None, "] focuses a flagged word")
        first = int(first)
        old_first = word_text(first)
        keys(Keys.ENTER)
        editor = driver.find_element(By.CSS_SELECTOR, ".word-editor")
        check(editor.get_attribute("value") == old_first, "Enter opens the editor with the word's text")
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys("Stepped", Keys.ENTER)
        check(word_text(first) == "Stepped", "the stepped word is retyped at once: %r" % word_text(first))
        check(js("return document.activeElement.getAttribute('data-i')") == str(first), "focus stays on the corrected word")
        count = js("return document.getElementById('low-count').textContent")
        check(count == "%d words" % (flagged - 1) and "flag" not in driver.find_element(By.ID, "w%d" % first).get_attribute("class"),
              "the corrected word leaves the words to review: %r of %d" % (count, flagged))
        keys("]")
        after = int(js("return document.activeElement.getAttribute('data-i')"))
        check(after > first, "] goes on to the next flagged word (%d after %d)" % (after, first))
        check(js("var v = document.getElementById('viewer'); return [v.scrollLeft, v.scrollTop];") == scroll,
              "nothing scrolled the page while stepping and fixing")
        # Retype by clicking, then click another word: what was typed is kept, confidence 100.
        click_word(1)
        editor = driver.find_element(By.CSS_SELECTOR, ".word-editor")
        editor.send_keys(Keys.CONTROL, "a")
        editor.send_keys(NEW)
        click_word(0)
        driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys(Keys.ESCAPE)
        check(word_text(1) == NEW, "the word typed and left by a click elsewhere is retyped: %r" % word_text(1))
        rect = driver.find_element(By.ID, "w1")
        check("corrected" in rect.get_attribute("class") and rect.get_attribute("data-c") == "100",
              "the word shows as corrected, confidence 100: %s %s" % (rect.get_attribute("class"), rect.get_attribute("data-c")))
        # Join 'over' 'the' (5, 6) with j; split 'harbour' (now 15) by typing a space; delete 'dawn'.
        click_word(5)
        driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys(Keys.ESCAPE)
        keys("j")
        check(word_text(5) == "overthe", "j joins the word with the next: %r" % word_text(5))
        harbour = [k for k in range(40) if word_text(k) == "harbour"][0]
        edit_word(harbour, "har bour")
        check(word_text(harbour) == "har" and word_text(harbour + 1) == "bour", "a space splits the word")
        dawn = [k for k in range(40) if word_text(k) == "dawn"][0]
        driver.find_element(By.ID, "find").send_keys("dawn")
        check(driver.find_element(By.ID, "find-count").text == "1 of 1", "find finds dawn")
        click_word(dawn)
        driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys(Keys.ESCAPE)
        keys(Keys.DELETE)
        check("dawn" not in [word_text(k) for k in range(50)], "Delete deletes the focused word")
        check(driver.find_element(By.ID, "find-count").text == "no matches", "a deleted word is no longer a hit: %r"
              % driver.find_element(By.ID, "find-count").text)
        driver.find_element(By.ID, "find").clear()
        if args.screenshots:
            js("var s = document.getElementById('min-confidence'); s.value = 96.3; s.dispatchEvent(new Event('input'));")
            keys("]")
            keys(Keys.ENTER)
            picture(os.path.join(args.screenshots, "proofreading.png"))
            driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys(Keys.ESCAPE)
        # Add a word: Shift-drag a box on the empty bottom right of the page, type it.
        svg = driver.find_element(By.ID, "page-svg")
        size = svg.size
        ActionChains(driver).move_to_element_with_offset(svg, int(size["width"] * 0.3), int(size["height"] * 0.42)) \
            .key_down(Keys.SHIFT).click_and_hold().move_by_offset(60, 20).release().key_up(Keys.SHIFT).perform()
        editor = driver.find_element(By.CSS_SELECTOR, ".word-editor")
        editor.send_keys("Addendum", Keys.ENTER)
        check("Addendum" in [word_text(k) for k in range(60)], "a drawn box takes the typed word")
        # From the keyboard: a, then Enter on the focused word adds one after it.
        click_word(0)
        driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys(Keys.ESCAPE)
        keys("a")
        keys(Keys.ENTER)
        driver.find_element(By.CSS_SELECTOR, ".word-editor").send_keys("Typed", Keys.ENTER)
        check(word_text(1) == "Typed", "a and Enter add a word after the focused one: %r" % word_text(1))
        driver.find_element(By.ID, "mark-reviewed").click()
        check("Reviewed by Ana" in js("return document.getElementById('reviewed').textContent"), "the page shows it is reviewed")
        stored = kept()
        check(len(stored) == 1 and len(stored[0]["corrections"]) == 8, "eight corrections kept in the browser: %r" % stored)
        kinds = [c["kind"] for c in stored[0]["corrections"]]
        check(kinds == ["retype", "retype", "join", "split", "delete", "add", "add", "review"], "kinds in order: %r" % kinds)
        retype = stored[0]["corrections"][1]
        check(retype["old"] == [{"text": "quick", "box": before["words"][1]["box"]}] and retype["word"] == 1
              and retype["new"][0]["box"] == before["words"][1]["box"] and retype["by"] == "Ana"
              and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", retype["at"]), "a retype as docs/corrections.md has it: %r" % retype)
        # Reloaded before saving: the corrections are shown again from the browser.
        load(driver, page_url)
        check(word_text(2) == NEW and "corrected" in driver.find_element(By.ID, "w2").get_attribute("class")
              and word_text(1) == "Typed", "kept corrections show again after a reload")
        check("not yet saved" in status(), "the page says corrections are not saved yet: %r" % status())

    def save_and_apply():
        driver.find_element(By.ID, "save-corrections").click()
        deadline = time.time() + 10
        path = os.path.join(downloads, "corrections.json")
        while not os.path.exists(path) and time.time() < deadline:
            time.sleep(0.1)
        check(os.path.exists(path), "Save corrections downloads corrections.json")
        exported = json.load(open(path))
        check(exported["versions"] == {entry["id"]: js("return document.body.getAttribute('data-version')")},
              "the export carries the page's version: %r" % exported.get("versions"))
        check(len(exported["corrections"]) == 8, "the export holds the eight corrections")
        shutil.copy(path, os.path.join(work, "offline-corrections.json"))
        # From the folder the batch was read in: the page names its input by that relative path.
        result = run_gloss(args.gloss, "correct", offline, path, cwd=work)
        check(result.returncode == 0, "gloss correct applies the export: %d %s %s" % (result.returncode, result.stdout, result.stderr))
        after = page_json(offline, entry)
        words = texts(after)
        check(NEW in words and "quick" not in words and "overthe" in words and "har" in words and "bour" in words
              and "dawn" not in words and "Addendum" in words and "Typed" in words, "the page JSON holds the corrections: %r" % words)
        at = words.index(NEW)
        check(after["words"][at]["corrected"] is True and after["words"][at]["confidence"] == 100
              and after["words"][at]["correctedBy"] == "Ana", "the word is marked corrected: %r" % after["words"][at])
        check(after.get("reviewed", {}).get("by") == "Ana", "the page is marked reviewed")
        shown = js("return Array.prototype.map.call(document.querySelectorAll('#page-text .w'), function (s) { return s.textContent; })")
        check(shown == words, "the browser showed the words in the order gloss correct gives them:\n%r\n%r" % (shown, words))
        load(driver, page_url)
        check(word_text(at) == NEW and "corrected" in driver.find_element(By.ID, "w%d" % at).get_attribute("class"),
              "the page loaded again shows the correction from its files")
        check(kept() == [], "saved corrections are dropped once the page is at a new version")
        check(js("return document.body.getAttribute('data-version')") != exported["versions"][entry["id"]],
              "the page view has the new version")

    def saved_twice_each_once():
        # A file saved, more corrections made on the page, a second file saved: the second holds
        # only the new one, without the page's version, so both apply in turn.
        load(driver, page_url)
        shown = [word_text(k) for k in range(80)]
        check("fox" in shown and "jumps" in shown, "the page still reads 'fox' and 'jumps': %r" % shown)
        files = []
        for name in os.listdir(downloads):
            os.remove(os.path.join(downloads, name))
        for old, new in [("fox", "Foxes"), ("jumps", "Jumped")]:
            edit_word(shown.index(old), new)
            path = os.path.join(downloads, "corrections.json")
            driver.find_element(By.ID, "save-corrections").click()
            deadline = time.time() + 10
            while not os.path.exists(path) and time.time() < deadline:
                time.sleep(0.1)
            kept_file = os.path.join(work, "saved-%d.json" % len(files))
            shutil.move(path, kept_file)
            files.append(json.load(open(kept_file)))
        check([len(f["corrections"]) for f in files] == [1, 1], "each file holds its own correction: %r" % files)
        check(list(files[0]["versions"]) == [entry["id"]] and files[1]["versions"] == {},
              "the second file has no version for the page: %r" % [f["versions"] for f in files])
        for number in range(2):
            result = run_gloss(args.gloss, "correct", offline, os.path.join(work, "saved-%d.json" % number), cwd=work)
            check(result.returncode == 0, "file %d applies: %s %s" % (number, result.stdout, result.stderr))
        words = texts(page_json(offline, entry))
        check("Foxes" in words and "Jumped" in words and NEW in words, "both corrections are on the page: %r" % words)

    def outputs_hold_it():
        hits = search_hits(args.gloss, offline, NEW)
        check(entry["id"] in hits, "gloss search finds the corrected word")
        check(entry["id"] not in search_hits(args.gloss, offline, "quick"), "gloss search no longer finds the wrong word")
        for format in ["hocr", "alto", "page", "txt"]:
            content = open(os.path.join(offline, entry["outputs"][format]), encoding="utf-8").read()
            check(NEW in content and ">quick<" not in content and "quick " not in content, "the %s holds the correction" % format)
        pdftotext = shutil.which("pdftotext")
        if not pdftotext:
            raise Skipped("no pdftotext")
        text = subprocess.run([pdftotext, os.path.join(offline, entry["outputs"]["pdf"]), "-"], stdout=subprocess.PIPE, text=True).stdout
        check(NEW in text and "quick" not in text, "the PDF's text layer holds the correction: %r" % text[:80])

    def served_edits():
        served_folder, served_entry = annotate(args.gloss, work, "served")
        unchanged_view = open(os.path.join(served_folder, served_entry["outputs"]["html"]), "rb").read()
        server = Served(args.gloss, served_folder)
        try:
            check(server.writable(), "gloss serve takes corrections (/api/status)")
            page = server.base + served_entry["outputs"]["html"]
            # The start-up address is the index's: the token it carries reaches the page views.
            load(driver, server.base + "index.html")
            js("localStorage.clear()")
            load(driver, server.base + "?token=" + urllib.parse.quote(server.token))
            check("token=" not in driver.current_url, "the token is taken out of the address bar")
            load(driver, page)
            time.sleep(0.3)
            check(js("return !document.getElementById('proof').hidden"), "the proofreading actions are shown when served")
            set_name("Ana")
            check(js("return localStorage.getItem('gloss.token')") == server.token, "the token is kept for the origin")
            # A second tab on the same version, before the edit.
            first_tab = driver.current_window_handle
            driver.switch_to.new_window("tab")
            load(driver, page)
            stale_tab = driver.current_window_handle
            driver.switch_to.window(first_tab)
            edit_word(1, NEW)
            deadline = time.time() + 10
            while "Saved" not in status() and time.time() < deadline:
                time.sleep(0.1)
            check("Saved" in status(), "the correction is saved at once: %r" % status())
            served_words = texts(page_json(served_folder, served_entry))
            check(NEW in served_words and "quick" not in served_words, "the served batch's JSON holds it")
            load(driver, page)
            check(word_text(1) == NEW, "the correction shows after a reload")
            driver.switch_to.window(stale_tab)
            time.sleep(0.3)
            edit_word(2, "Brownish")
            deadline = time.time() + 10
            while "changed elsewhere" not in status() and time.time() < deadline:
                time.sleep(0.1)
            check("changed elsewhere" in status(), "a stale tab gets the conflict message: %r" % status())
            check("Brownish" not in texts(page_json(served_folder, served_entry)), "the stale edit is not written")
            # A view written before the page changed says so as it opens.
            stale_copy = os.path.join(served_folder, "pages", "stale-copy.html")
            open(stale_copy, "wb").write(unchanged_view)
            load(driver, server.base + "pages/stale-copy.html")
            time.sleep(0.5)
            check("changed elsewhere" in status(), "a view older than its page says so when it opens: %r" % status())
            os.remove(stale_copy)
            driver.close()
            driver.switch_to.window(first_tab)
        finally:
            server.stop()
        # The same edit offline, on a batch of its own, applied with gloss correct.
        same_folder, same_entry = annotate(args.gloss, work, "same")
        fixed = json.load(open(os.path.join(work, "offline-corrections.json")))
        retype = fixed["corrections"][1]
        check(retype["kind"] == "retype" and retype["new"][0]["text"] == NEW, "the offline export's retype")
        path = os.path.join(work, "one.json")
        json.dump({"corrections": [retype]}, open(path, "w"))
        result = run_gloss(args.gloss, "correct", same_folder, path, cwd=work)
        check(result.returncode == 0, "gloss correct applies the offline retype: %s" % result.stderr)
        served_report, same_report = page_json(served_folder, served_entry), page_json(same_folder, same_entry)
        strip = lambda report: [(w["text"], w["box"], w["confidence"], w.get("corrected")) for w in report["words"]]
        check(strip(served_report) == strip(same_report), "the served edit and the offline export give the same words")

    try:
        run.test("offline: step, retype, join, split, delete, add, review", offline_edits)
        run.test("offline: save corrections, gloss correct, reload", save_and_apply)
        run.test("offline: a second file holds only what the first did not", saved_twice_each_once)
        run.test("offline: search, hOCR, ALTO, PAGE, text and PDF hold the correction", outputs_hold_it)
        run.test("served: saved at once, reload, stale tab, same as offline", served_edits)
        # The stale tab's refused POST is logged by Chromium itself; it is expected.
        errors = [e for e in viewer.console_errors(driver) if "favicon" not in e and "412 (Precondition Failed)" not in e]
        run.test("no script errors", lambda: check(not errors, "console errors: %r" % errors))
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    run.conclude()


if __name__ == "__main__":
    main()
