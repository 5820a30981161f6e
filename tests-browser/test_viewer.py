#!/usr/bin/python3
"""The report in a real browser: headless Chromium opens a report that `gloss annotate` wrote,
from file://, and checks what a person would see.

    /usr/bin/python3 tests-browser/test_viewer.py [--gloss .build/debug/gloss] [--artifacts DIR]

Needs Debian's chromium, chromium-driver and python3-selenium (python3-pil for the page whose
text is markup). Without them it says so and exits 0. Screenshots go to --artifacts
(default .build/browser-test). A check that needs what this gloss lacks (`gloss search`) is
skipped with a note. The last line is "N passed, N failed".
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
XSS_NAME = "<img src=x onerror=alert(1)>.png"
XSS_TEXT = "</script><script>alert(1)</script>"
KNOWN_WORDS = ["quick", "harbour", "oranges"]
WINDOW_SIZES = [(1400, 1000), (760, 900)]
# Queries the report's search and `gloss search` must answer alike: same pages, same order.
# Punctuation in plain words is searched as the phrase of their tokens (query_rule.json).
SEARCH_QUERIES = ["harbour", "\"quick brown\"", "qui*", "quick NOT harbour", "quick OR oranges", "quick-", "harbour)",
                  "quick-brown"]
# FTS5 syntax used on purpose but refused by FTS5, so refused by both.
BAD_QUERIES = ["quick AND", "(harbour OR"]
SCORE_TOLERANCE = 1e-9


# `make test` sets GLOSS_REQUIRE_TOOLS: there, a tool `make setup` installs that is missing is a
# failure, not a skip, so a setup that lost one cannot pass with the browser tests unrun.
REQUIRED = os.environ.get("GLOSS_REQUIRE_TOOLS") == "1"


def skip(reason):
    print("browser test %s: %s" % ("FAILED (a tool make setup installs is missing)" if REQUIRED else "SKIPPED", reason))
    sys.exit(1 if REQUIRED else 0)


try:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:
    skip("python3-selenium is not installed (make setup installs it)")


def find_tool(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    return None


class Failure(Exception):
    pass


class Skipped(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def make_inputs(folder):
    """Fixture pages, a file named like markup, a page whose text is markup, a broken file."""
    shutil.copy(os.path.join(ROOT, "fixtures/text/sans.png"), folder)
    shutil.copy(os.path.join(ROOT, "fixtures/text/two-pages.tif"), folder)
    shutil.copy(os.path.join(ROOT, "fixtures/bad/empty.png"), folder)
    shutil.copy(os.path.join(ROOT, "fixtures/text/mono.png"), os.path.join(folder, XSS_NAME))
    try:
        from PIL import Image, ImageDraw, ImageFont
        font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 40)
        image = Image.new("L", (1200, 200), 255)
        ImageDraw.Draw(image).text((40, 70), XSS_TEXT, font=font, fill=0)
        image.save(os.path.join(folder, "markup-text.png"), dpi=(300, 300))
    except (ImportError, OSError) as error:
        print("note: no page with markup text (%s)" % error)


def browser_tools():
    """Chromium and its driver; without them the test is skipped (exit 0), naming what is missing."""
    chromium = find_tool(["chromium", "chromium-browser", "google-chrome"])
    driver_path = find_tool(["chromedriver"]) or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium:
        skip("chromium is not installed (make setup installs it)")
    if not driver_path:
        skip("chromedriver is not installed (Debian's chromium-driver; make setup installs it)")
    return chromium, driver_path


def set_up_failed(test, reason, detail=None):
    """Ends a browser test whose set-up failed: one failure, before any check ran."""
    if detail:
        print(detail)
    print("%s FAILED: %s" % (test, reason))
    print("0 passed, 1 failed")
    sys.exit(1)


def annotate_report(test, gloss, arguments, cwd=None, statuses=(0, 1)):
    """Runs `gloss annotate ARGUMENTS` (one OCR thread, as on CI) and returns the manifest of
    the report it wrote (`-o` among the arguments); ends the test when there is none."""
    if not os.access(gloss, os.X_OK):
        set_up_failed(test, "no gloss binary at %s (run swift build first)" % gloss)
    report = arguments[arguments.index("-o") + 1]
    report = os.path.join(cwd, report) if cwd else report
    # Tesseract alone (`--text fast`): the report is under test here, not the reading.
    result = subprocess.run([os.path.abspath(gloss), "annotate"] + arguments + ["--quiet", "--text", "fast"], cwd=cwd,
                            env=dict(os.environ, OMP_THREAD_LIMIT="1"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode not in statuses or not os.path.exists(os.path.join(report, "index.html")):
        set_up_failed(test, "gloss annotate exited %d without a report" % result.returncode, result.stderr)
    return json.load(open(os.path.join(report, "gloss.json")))


def browser(chromium, driver):
    options = Options()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--force-device-scale-factor=1", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


def console_errors(driver):
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def no_alert(driver):
    try:
        text = driver.switch_to.alert.text
    except NoAlertPresentException:
        return
    driver.switch_to.alert.dismiss()
    raise Failure("a dialog opened: %r" % text)


def contrast_ratios(driver, selector):
    """The WCAG contrast ratio of the text of every element `selector` matches against the first
    opaque background behind it, as [class or tag, ratio] pairs."""
    return driver.execute_script("""function rgb(c) { return c.match(/[\\d.]+/g).map(Number); }
        function ch(v) { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }
        function lum(c) { return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2]); }
        function background(el) { for (; el; el = el.parentElement) { var c = rgb(getComputedStyle(el).backgroundColor);
          if (c.length < 4 || c[3] > 0.9) return c; } return [255, 255, 255]; }
        var out = [];
        document.querySelectorAll(arguments[0]).forEach(function (el) {
          var f = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
          out.push([el.className || el.tagName, (Math.max(f, b) + 0.05) / (Math.min(f, b) + 0.05)]);
        });
        return out;""", selector)


def load(driver, url):
    driver.get(url)
    driver.execute_script("return document.readyState")
    time.sleep(0.3)
    no_alert(driver)


class Run:
    def __init__(self, args):
        self.args = args
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def test(self, name, function):
        try:
            function()
            self.passed += 1
            print("ok   " + name)
        except Skipped as note:
            if REQUIRED:
                self.failed += 1
                print("FAIL " + name + ": skipped where every tool is required: " + str(note))
                return
            self.skipped += 1
            print("skip " + name + ": " + str(note))
        except Exception as error:
            self.failed += 1
            print("FAIL " + name + ": " + str(error))
            if not isinstance(error, Failure):
                traceback.print_exc()

    def conclude(self):
        """The last lines every browser test prints, and its exit status."""
        print("screenshots: " + self.args.artifacts)
        if self.skipped:
            print("%d skipped (see the notes above)" % self.skipped)
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", default=os.path.join(ROOT, ".build/debug/gloss"))
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/browser-test"))
    args = parser.parse_args()

    chromium, driver_path = browser_tools()
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gloss-browser-")
    inputs = os.path.join(work, "in")
    report = os.path.join(work, "report")
    os.makedirs(inputs)
    make_inputs(inputs)
    manifest = annotate_report("browser test", args.gloss, [inputs, "-o", report])
    pages = {os.path.basename(entry["source"]): entry for entry in manifest["pages"] if entry.get("outputs")}
    truth = json.load(open(os.path.join(ROOT, "fixtures/text/sans.json")))
    sans_url = "file://" + urllib.parse.quote(os.path.join(report, pages["sans.png"]["outputs"]["html"]))
    index_url = "file://" + urllib.parse.quote(os.path.join(report, "index.html"))

    driver = browser(chromium, driver_path)
    run = Run(args)

    def shot(name):
        driver.save_screenshot(os.path.join(args.artifacts, name + ".png"))

    def word_rect(text):
        return driver.execute_script("""
            var spans = document.querySelectorAll('#page-text .w');
            for (var i = 0; i < spans.length; i++) {
              if (spans[i].textContent === arguments[0]) {
                var rect = document.getElementById('w' + spans[i].getAttribute('data-i'));
                var box = rect.getBoundingClientRect();
                return {x: +rect.getAttribute('x'), y: +rect.getAttribute('y'), w: +rect.getAttribute('width'),
                        h: +rect.getAttribute('height'), left: box.left, top: box.top, right: box.right, bottom: box.bottom};
              }
            }
            return null;""", text)

    def boxes_sit_on_the_words():
        for width, height in WINDOW_SIZES:
            driver.set_window_size(width, height)
            load(driver, sans_url)
            image = driver.execute_script(
                "var b = document.querySelector('#page-svg image').getBoundingClientRect();"
                "return {left: b.left, top: b.top, width: b.width, height: b.height};")
            scale = image["width"] / truth["width"]
            check(abs(image["height"] / truth["height"] - scale) < 0.01, "image keeps the page's proportions")
            for text in KNOWN_WORDS:
                expected = next(word for word in truth["words"] if word["text"] == text)["box"]
                found = word_rect(text)
                check(found is not None, "no box for %r" % text)
                for ours, theirs in [(found["x"], expected["x"]), (found["y"], expected["y"]),
                                     (found["x"] + found["w"], expected["x"] + expected["width"]),
                                     (found["y"] + found["h"], expected["y"] + expected["height"])]:
                    check(abs(ours - theirs) <= 2, "%r at %s in page pixels, truth %s" % (text, found, expected))
                screen = [image["left"] + expected["x"] * scale, image["top"] + expected["y"] * scale,
                          image["left"] + (expected["x"] + expected["width"]) * scale,
                          image["top"] + (expected["y"] + expected["height"]) * scale]
                drawn = [found["left"], found["top"], found["right"], found["bottom"]]
                for a, b in zip(drawn, screen):
                    check(abs(a - b) <= 2, "%r drawn at %s on screen, expected %s (window %dx%d)" % (text, drawn, screen, width, height))
            shot("page-%dx%d" % (width, height))
            errors = console_errors(driver)
            check(not errors, "console errors: %s" % errors)
        driver.set_window_size(*WINDOW_SIZES[0])

    def find_highlights_the_words():
        load(driver, sans_url)
        field = driver.find_element(By.ID, "find")
        field.send_keys("harbour")
        hits = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('#page-svg .word.hit'),"
                                     " function (r) { return r.getAttribute('aria-label'); })")
        check(len(hits) == 1 and hits[0].startswith("harbour,"), "hits for harbour: %s" % hits)
        check(driver.find_element(By.ID, "find-count").text == "1 of 1", "count says 1 of 1")
        field.clear()
        field.send_keys("the")
        expected = [word["text"] for word in truth["words"] if "the" in word["text"].lower()]
        count = driver.execute_script("return document.querySelectorAll('#page-svg .word.hit').length")
        check(count == len(expected), "%d hits for 'the', truth has %d" % (count, len(expected)))
        field.send_keys(Keys.ENTER)
        check(driver.find_element(By.ID, "find-count").text == "2 of %d" % len(expected), "Enter goes to the next hit")
        shot("page-find")
        check(not console_errors(driver), "console errors")

    def layers_slider_and_zoom_respond():
        load(driver, sans_url)
        driver.find_element(By.CSS_SELECTOR, "[data-layer=lines]").click()
        check(driver.execute_script("return getComputedStyle(document.querySelector('#page-svg .lines')).display") != "none",
              "lines layer shows when ticked")
        driver.find_element(By.TAG_NAME, "body").send_keys("w")
        check(driver.execute_script("return getComputedStyle(document.querySelector('#page-svg .words')).display") == "none",
              "w hides the words")
        driver.find_element(By.TAG_NAME, "body").send_keys("w")
        driver.execute_script("var s = document.getElementById('min-confidence'); s.value = 100;"
                              "s.dispatchEvent(new Event('input'));")
        flagged = driver.execute_script("return document.querySelectorAll('#page-svg .word.flag').length")
        check(flagged == len(truth["words"]), "every word is flagged for review below 100 (%d)" % flagged)
        before = driver.execute_script("return document.getElementById('page-svg').getBoundingClientRect().width")
        driver.find_element(By.ID, "zoom-in").click()
        after = driver.execute_script("return document.getElementById('page-svg').getBoundingClientRect().width")
        check(after > before * 1.2, "zoom in grows the page (%s to %s)" % (before, after))
        found = word_rect("quick")
        image = driver.execute_script("var b = document.querySelector('#page-svg image').getBoundingClientRect();"
                                      "return {left: b.left, width: b.width};")
        expected = next(word for word in truth["words"] if word["text"] == "quick")["box"]
        check(abs(found["left"] - (image["left"] + expected["x"] * image["width"] / truth["width"])) <= 2,
              "boxes stay on the words when zoomed")
        shot("page-zoomed")

    def tooltip_shows_text_and_confidence():
        load(driver, sans_url)
        driver.execute_script("document.getElementById('w1').focus()")
        tip = driver.find_element(By.ID, "tip")
        check(tip.is_displayed() and tip.text.startswith("quick"), "tooltip on focus: %r" % tip.text)

    def keyboard_goes_to_the_next_page():
        load(driver, sans_url)
        order = driver.execute_script("return window.glossPages.map(function (p) { return p[0]; })")
        here = order.index(pages["sans.png"]["outputs"]["html"])
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.5)
        if here + 1 < len(order):
            check(driver.current_url.endswith(urllib.parse.quote(order[here + 1].split("/")[-1])),
                  "→ opens %s, not %s" % (order[here + 1], driver.current_url))

    def index_search_opens_the_page_at_the_hit():
        load(driver, index_url)
        check(driver.execute_script("return document.querySelectorAll('.grid .card').length") == len(manifest["pages"]),
              "one card per page")
        check(len(driver.find_elements(By.CSS_SELECTOR, ".failures li")) == manifest_failures(), "failures listed")
        driver.find_element(By.ID, "search").send_keys("harbour")
        deadline = time.time() + 5
        while time.time() < deadline and driver.find_element(By.ID, "search-status").text not in ("1 page", "0 pages"):
            time.sleep(0.1)
        time.sleep(0.3)  # the last keystroke's delayed search may redraw the list once more
        links = driver.find_elements(By.CSS_SELECTOR, "#result-list a")
        check(len(links) == 1, "one page has 'harbour': %d" % len(links))
        check(driver.find_element(By.CSS_SELECTOR, "#result-list mark").text.lower() == "harbour", "snippet marks the word")
        shot("index-search")
        links[0].click()
        time.sleep(0.5)
        hits = driver.execute_script("return document.querySelectorAll('#page-svg .word.hit.current').length")
        check(hits == 1, "the page opens with the hit marked")
        check(not console_errors(driver), "console errors: %s" % console_errors(driver))

    def page_opens_with_the_query_marked():
        # What a result of the index's search links to: the page with #q=<query>, an FTS5 query.
        # The words its phrases hit are marked (in the picture and in the text), nothing else.
        expectations = [
            ("\"quick brown\"", ["quick", "brown"]),
            ("qui*", ["quick"]),
            ("quick NOT harbour", ["quick"]),
            ("harbour OR dawn", ["harbour", "dawn"]),
            ("\"brown quick\"", []),       # a phrase only where its words follow each other
            ("^the", ["The"]),               # ^: only the page's first word
            ("Caf\u00e9", []),              # no such word; tokenized like the index (cafe)
            ("fox (", ["fox"]),              # FTS5 refuses it: words found inside words, as before
        ]
        for query, expected in expectations:
            load(driver, "about:blank")  # a new hash alone would not load the page again
            load(driver, sans_url + "#q=" + urllib.parse.quote(query, safe=""))
            marked = driver.execute_script("""
                function texts(selector) {
                  return Array.prototype.map.call(document.querySelectorAll(selector), function (element) {
                    var index = element.getAttribute('data-i');
                    return document.querySelector('#page-text .w[data-i="' + index + '"]').textContent;
                  });
                }
                return {svg: texts('#page-svg .word.hit'), text: texts('#page-text .w.hit'),
                        current: document.querySelectorAll('#page-svg .word.hit.current').length,
                        count: document.getElementById('find-count').textContent,
                        field: document.getElementById('find').value};""")
            check(marked["field"] == query, "the find box shows %r, not %r" % (query, marked["field"]))
            check(marked["svg"] == expected, "#q=%s marks %s in the picture, expected %s" % (query, marked["svg"], expected))
            check(marked["text"] == expected, "#q=%s marks %s in the text, expected %s" % (query, marked["text"], expected))
            check(marked["current"] == (1 if expected else 0), "#q=%s: %d current hits" % (query, marked["current"]))
            check(marked["count"] == ("1 of %d" % len(expected) if expected else "no matches"),
                  "#q=%s: the count says %r" % (query, marked["count"]))
        # Typed into the find box, a query with FTS5's operators reads the same; plain words are
        # still found inside words.
        load(driver, sans_url)
        field = driver.find_element(By.ID, "find")
        field.send_keys("\"quick brown\"")
        check(driver.execute_script("return document.querySelectorAll('#page-svg .word.hit').length") == 2,
              "the phrase typed into the find box marks two words")
        field.clear()
        field.send_keys("qui")
        check(driver.execute_script("return document.querySelectorAll('#page-svg .word.hit').length") == 1,
              "plain letters typed into the find box are found inside words")
        check(not console_errors(driver), "console errors: %s" % console_errors(driver))

    def wait_for_search(query):
        """Types `query` into the index's search and waits for the ranked list of every shard."""
        field = driver.find_element(By.ID, "search")
        field.clear()
        field.send_keys(query)
        time.sleep(0.3)  # the delayed search after the last keystroke
        deadline = time.time() + 5
        while time.time() < deadline:
            text = driver.find_element(By.ID, "search-status").text
            if text and "so far" not in text:
                return text
            time.sleep(0.1)
        raise Failure("the search for %r did not finish: %r" % (query, driver.find_element(By.ID, "search-status").text))

    def tied_order(entries):
        """[(html, score)] best first, scores within SCORE_TOLERANCE taken as one rank."""
        order, group, anchor = [], [], None
        for html, score in sorted(entries, key=lambda entry: entry[1]):
            if anchor is not None and abs(score - anchor) > SCORE_TOLERANCE * max(1.0, abs(anchor)):
                order.extend(sorted(group, key=lambda h: h or ""))
                group, anchor = [], None
            if anchor is None:
                anchor = score
            group.append(html)
        return order + sorted(group, key=lambda h: h or "")

    def index_search_agrees_with_gloss_search():
        probe = subprocess.run([args.gloss, "search", "--help"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            raise Skipped("`%s search --help` exited %d: this gloss has no search command to compare with"
                          % (args.gloss, probe.returncode))
        load(driver, index_url)
        for query in SEARCH_QUERIES:
            cli = subprocess.run([args.gloss, "search", report, query, "--json", "--limit", "100000"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(cli.returncode in (0, 1), "gloss search %r exited %d: %s" % (query, cli.returncode, cli.stderr.strip()))
            answer = json.loads(cli.stdout)
            expected = [(result["html"], result["score"]) for result in answer["results"]]
            status = wait_for_search(query)
            listed = driver.execute_script("""
                return Array.prototype.map.call(document.querySelectorAll('#result-list > li'), function (item) {
                  var link = item.querySelector('a');
                  return link ? link.getAttribute('href').split('#q=')[0] : (item.querySelector('button') ? '' : null);
                }).filter(function (html) { return html !== ''; });""")
            ours = driver.execute_script("return window.glossSearch.evaluate(arguments[0])", query)
            check(ours["error"] is None and ours["complete"], "the browser's search of %r: %s" % (query, ours))
            check(len(listed) == len(ours["scores"]), "%r lists %d of %d pages (%s)" % (query, len(listed), len(ours["scores"]), status))
            check(tied_order(list(zip(listed, ours["scores"]))) == tied_order(expected),
                  "%r: the report lists %s, gloss search %s" % (query, listed, [html for html, _ in expected]))
            for (html, score), theirs in zip(sorted(zip(listed, ours["scores"]), key=lambda e: e[0] or ""),
                                             sorted(expected, key=lambda e: e[0] or "")):
                check(abs(score - theirs[1]) <= SCORE_TOLERANCE * max(1.0, abs(theirs[1])),
                      "%r: %s scores %r in the report, %r in gloss search" % (query, html, score, theirs[1]))
        for query in BAD_QUERIES:
            cli = subprocess.run([args.gloss, "search", report, query, "--json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(cli.returncode == 2, "gloss search %r exited %d, expected 2 (a bad query)" % (query, cli.returncode))
            status = driver.find_element(By.ID, "search-status")
            field = driver.find_element(By.ID, "search")
            field.clear()
            field.send_keys(query)
            time.sleep(0.4)
            check(status.text.startswith("Query error:"), "the report says %r for %r" % (status.text, query))
            check(not driver.find_elements(By.CSS_SELECTOR, "#result-list li"), "nothing listed for %r" % query)
        shot("index-search-ranked")
        check(not console_errors(driver), "console errors: %s" % console_errors(driver))

    def manifest_failures():
        return sum(1 for entry in manifest["pages"] if entry["status"] != "ok")

    def markup_in_names_and_text_stays_text():
        load(driver, index_url)
        check(not driver.find_elements(By.CSS_SELECTOR, "img[src=x]"), "no image element from a file name")
        names = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('.card .name'),"
                                      " function (n) { return n.textContent; })")
        check(any(XSS_NAME in name for name in names), "the hostile file name is shown as text: %s" % names)
        shot("index")
        for entry in manifest["pages"]:
            if not entry.get("outputs"):
                continue
            load(driver, "file://" + urllib.parse.quote(os.path.join(report, entry["outputs"]["html"])))
            check(not driver.find_elements(By.CSS_SELECTOR, "img[src=x]"), "no image element in %s" % entry["source"])
            check(driver.execute_script("return document.querySelectorAll('script:not([src])').length") == 0,
                  "no inline script in %s" % entry["source"])
            if os.path.basename(entry["source"]) == "markup-text.png":
                text = driver.find_element(By.ID, "page-text").text
                check("script" in text, "the markup text shows as text: %r" % text)
                shot("page-markup-text")
            if os.path.basename(entry["source"]) == XSS_NAME:
                check(XSS_NAME in driver.find_element(By.TAG_NAME, "h1").text, "the name shows as text")
                shot("page-markup-name")
            errors = console_errors(driver)
            check(not errors, "console errors on %s: %s" % (entry["source"], errors))
        load(driver, index_url)
        driver.find_element(By.ID, "search").send_keys("script")
        time.sleep(1)
        no_alert(driver)
        check(not console_errors(driver), "console errors after searching for markup")

    def the_policy_blocks_inline_code_under_file_urls():
        # A copy of a real page with inline code added: the policy must stop it while the
        # page's own files still load.
        page = os.path.join(report, pages["sans.png"]["outputs"]["html"])
        canary = os.path.join(os.path.dirname(page), "csp-canary.html")
        html = open(page, encoding="utf-8").read()
        html = html.replace("</body>", "<script>document.title = 'inline ran';</script>"
                                       "<img src=\"missing.png\" onerror=\"document.title = 'handler ran'\"></body>")
        open(canary, "w", encoding="utf-8").write(html)
        load(driver, "file://" + urllib.parse.quote(canary))
        time.sleep(0.3)
        title = driver.title
        check("ran" not in title, "inline code ran: %r" % title)
        check(driver.execute_script("return Array.isArray(window.glossPages)"), "the page's own data script loaded")
        check(driver.execute_script("return getComputedStyle(document.querySelector('.bar')).display") == "flex",
              "the page's own stylesheet applied")
        driver.find_element(By.ID, "find").send_keys("fox")
        check(driver.execute_script("return document.querySelectorAll('#page-svg .word.hit').length") == 1,
              "the page's own script runs")
        check(driver.execute_script("return document.querySelector('#page-svg image').getBoundingClientRect().width") > 0,
              "the display image loads")
        errors = console_errors(driver)
        check(any("Content Security Policy" in error for error in errors), "the browser reports the blocked code: %s" % errors)
        os.remove(canary)

    try:
        run.test("boxes sit on the words at two window sizes", boxes_sit_on_the_words)
        run.test("find highlights the words", find_highlights_the_words)
        run.test("layers, slider and zoom respond", layers_slider_and_zoom_respond)
        run.test("tooltip shows text and confidence", tooltip_shows_text_and_confidence)
        run.test("keyboard goes to the next page", keyboard_goes_to_the_next_page)
        run.test("index search opens the page at the hit", index_search_opens_the_page_at_the_hit)
        run.test("the page opens with the query's words marked", page_opens_with_the_query_marked)
        run.test("index search agrees with gloss search", index_search_agrees_with_gloss_search)
        run.test("markup in names and text stays text", markup_in_names_and_text_stays_text)
        run.test("the policy blocks inline code under file URLs", the_policy_blocks_inline_code_under_file_urls)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    run.conclude()


if __name__ == "__main__":
    main()
