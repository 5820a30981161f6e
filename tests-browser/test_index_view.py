#!/usr/bin/python3
"""The batch index as a person uses it: headless Chromium opens, from file://, an index that
`gloss annotate` wrote for inputs in several folders, and checks titles, groups, sorting and
filtering, lazy thumbnails, the download links, the phone layout and the search box.

    /usr/bin/python3 tests-browser/test_index_view.py [--gloss .build/release/gloss] [--artifacts DIR]

Needs what test_viewer.py needs (chromium, chromium-driver, python3-selenium, python3-pil);
without them it says so and exits 0. Screenshots go to --artifacts (the phone layout among
them). The last line is "N passed, N failed".
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_viewer  # noqa: E402  (its helpers; it skips with exit 0 when Selenium is missing)
from test_viewer import Failure, Run, browser, check, console_errors, load  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

ROOT = test_viewer.ROOT
# Typed into the search box and given to `gloss search` alike: both must read them as phrases.
TYPED_QUERIES = ["don't", "quick-brown", "harbour)", "12:30", "e-mail", "(fox", "\"the quick brown", "quick-"]
PUNCTUATED_TEXT = ["Don't forget the e-mail", "at 12:30 (quick-brown fox)"]
MANY = 300  # tiny pages in one folder, for lazy loading
PHONE = (390, 844)
DESKTOP = (1400, 900)


def make_review_pages(folder):
    """Two pages the triage flags (docs/report.md), read by Tesseract as annotate_report asks:
    lines in scripts its English model does not read (words at a mean confidence of 68: of low
    confidence, not suspect), and a blurred, speckled page it finds no words on (its text-like
    ink uncovered: suspect)."""
    import random
    from PIL import Image, ImageDraw, ImageFilter, ImageFont
    sans = lambda size: ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", size)
    scripts = Image.new("L", (1300, 400), 255)
    for line, text in enumerate(["Harbour accounts for the year", "Οι λογαριασμοί του λιμανιού για το έτος",
                                 "Счета гавани за этот год", "Λιμάνι και προβλήτα βόρειο τείχος"]):
        ImageDraw.Draw(scripts).text((40, 40 + line * 80), text, font=sans(44), fill=0)
    scripts.save(os.path.join(folder, "scripts.png"), dpi=(300, 300))
    minutes = ["The committee met on the fourth of March", "to consider the harbour accounts and the",
               "repairs to the north wall of the old pier.", "Members present voted to defer the matter",
               "until the surveyor had reported in full."]
    speckled = Image.new("L", (900, 60 + 40 * len(minutes)), 255)
    for line, text in enumerate(minutes):
        ImageDraw.Draw(speckled).text((30, 30 + line * 40), text, font=sans(16), fill=0)
    speckled = speckled.filter(ImageFilter.GaussianBlur(1.2))
    pixels, noise = speckled.load(), random.Random(7)
    for y in range(speckled.height):
        for x in range(speckled.width):
            if noise.random() < 0.10:
                pixels[x, y] = noise.choice((0, 255))
    speckled.save(os.path.join(folder, "speckled.png"), dpi=(150, 150))


def make_inputs(folder):
    """text/ (two pages and a punctuated page), scans/two-pages.tif, faces/, review/ (two pages
    to flag), bad/, many/."""
    from PIL import Image, ImageDraw, ImageFont
    for name in ["text", "scans", "faces", "review", "bad", "many"]:
        os.makedirs(os.path.join(folder, name))
    shutil.copy(os.path.join(ROOT, "fixtures/text/sans.png"), os.path.join(folder, "text"))
    shutil.copy(os.path.join(ROOT, "fixtures/text/serif.png"), os.path.join(folder, "text"))
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 44)
    image = Image.new("L", (1300, 260), 255)
    for line, text in enumerate(PUNCTUATED_TEXT):
        ImageDraw.Draw(image).text((40, 40 + line * 90), text, font=font, fill=0)
    image.save(os.path.join(folder, "text", "a-rather-long-file-name-for-the-punctuated-page.png"), dpi=(300, 300))
    shutil.copy(os.path.join(ROOT, "fixtures/text/two-pages.tif"), os.path.join(folder, "scans"))
    for name in ["astronaut.png", "astronaut-trio.png"]:
        shutil.copy(os.path.join(ROOT, "fixtures/faces", name), os.path.join(folder, "faces"))
    make_review_pages(os.path.join(folder, "review"))
    shutil.copy(os.path.join(ROOT, "fixtures/bad/empty.png"), os.path.join(folder, "bad"))
    tiny = Image.new("L", (240, 80), 255)
    ImageDraw.Draw(tiny).text((10, 15), "page", font=ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28), fill=0)
    for number in range(MANY):
        tiny.save(os.path.join(folder, "many", "p%03d.png" % number))
    return [os.path.join(folder, name) for name in ["text", "scans", "faces", "review", "bad", "many"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", default=os.path.join(ROOT, ".build/release/gloss"))
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/browser-test"))
    args = parser.parse_args()

    chromium, driver_path = test_viewer.browser_tools()
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gloss-index-")
    inputs = os.path.join(work, "in")
    report = os.path.join(work, "report")
    os.makedirs(inputs)
    folders = make_inputs(inputs)
    manifest = test_viewer.annotate_report("index view test", args.gloss, folders + ["-o", report])
    entries = manifest["pages"]
    index_url = "file://" + urllib.parse.quote(os.path.join(report, "index.html"))
    driver = browser(chromium, driver_path)
    run = Run(args)

    def shot(name):
        driver.save_screenshot(os.path.join(args.artifacts, name + ".png"))

    def relative(entry):
        return os.path.relpath(entry["source"], inputs)

    def visible_cards():
        """[{name, title, conf, words, faces, failed}] of the cards shown, in the order shown."""
        return driver.execute_script("""
            var view = document.getElementById('arranged').hidden ? 'groups' : 'arranged';
            return Array.prototype.filter.call(document.querySelectorAll('#' + view + ' .card'), function (card) {
              return !card.closest('[hidden]');
            }).map(function (card) {
              var name = card.querySelector('.name');
              return {name: name.textContent, title: name.getAttribute('title'),
                      conf: card.hasAttribute('data-c') ? +card.getAttribute('data-c') : null,
                      words: +card.getAttribute('data-w'), faces: +card.getAttribute('data-f'),
                      failed: !card.classList.contains('ok')};
            });""")

    def choose(field, value):
        driver.execute_script("var f = document.getElementById(arguments[0]); f.value = arguments[1];"
                              " f.dispatchEvent(new Event('change'));", field, value)

    def titles_are_relative_and_numbered_only_for_files_of_several_pages():
        driver.set_window_size(*DESKTOP)
        load(driver, index_url)
        cards = visible_cards()
        check(len(cards) == len(entries), "%d cards for %d pages" % (len(cards), len(entries)))
        by_title = {card["title"]: card["name"] for card in cards}
        for entry in entries:
            full = "%s · page %d" % (entry["source"], entry["pageIndex"] + 1)
            check(full in by_title, "a card's tooltip holds the full source %r" % full)
            expected = relative(entry)
            if entry["source"].endswith("two-pages.tif"):
                expected += " · page %d" % (entry["pageIndex"] + 1)
            check(by_title[full] == expected, "the card of %s reads %r, expected %r" % (entry["source"], by_title[full], expected))
        check(not any(inputs in card["name"] for card in cards), "no title holds the absolute path")
        # Titles are not clipped: every name fits in its card.
        clipped = driver.execute_script("""
            return Array.prototype.filter.call(document.querySelectorAll('#groups .card .name'), function (name) {
              return name.scrollWidth > name.clientWidth + 1;
            }).length;""")
        check(clipped == 0, "%d titles wider than their card" % clipped)
        errors = console_errors(driver)
        check(not errors, "console errors: %s" % errors)

    def pages_are_grouped_by_folder_or_file():
        load(driver, index_url)
        headings = driver.execute_script("""
            return Array.prototype.map.call(document.querySelectorAll('#groups .group'), function (group) {
              var heading = group.querySelector('h3');
              return [heading.firstChild.textContent.trim(), group.querySelectorAll('.card').length,
                      group.querySelectorAll('.chunk').length];
            });""")
        expected = [["text/", 3, 1], ["scans/two-pages.tif", 2, 1], ["faces/", 2, 1], ["review/", 2, 1], ["bad/", 1, 1], ["many/", MANY, 3]]
        check(headings == expected, "groups %s, expected %s" % (headings, expected))
        check(driver.execute_script("return getComputedStyle(document.querySelector('.chunk')).contentVisibility") == "auto",
              "chunks are painted only near the viewport")

    def sorting_orders_the_cards():
        load(driver, index_url)
        choose("sort", "confidence")
        cards = visible_cards()
        figures = [card["conf"] for card in cards]
        known = [value for value in figures if value is not None]
        check(known == sorted(known) and len(known) > 3, "lowest confidence first: %s" % figures)
        check(all(value is None for value in figures[len(known):]), "pages without a confidence come last: %s" % figures)
        shot("index-sorted-by-confidence")
        choose("sort", "-confidence")
        known = [card["conf"] for card in visible_cards() if card["conf"] is not None]
        check(known == sorted(known, reverse=True), "highest confidence first: %s" % known)
        choose("sort", "-words")
        words = [card["words"] for card in visible_cards()]
        check(words == sorted(words, reverse=True), "most words first: %s" % words[:20])
        choose("sort", "-faces")
        faces = [card["faces"] for card in visible_cards()]
        check(faces == sorted(faces, reverse=True) and faces[0] >= 1, "most faces first: %s" % faces[:10])
        choose("sort", "name")
        names = [card["name"] for card in visible_cards()]
        check(names[0].startswith("bad/") and names[-1].startswith("text/"), "by name: %s ... %s" % (names[:2], names[-2:]))
        choose("sort", "")
        check(len(visible_cards()) == len(entries) and driver.find_element(By.ID, "arranged").get_attribute("hidden"),
              "back to the groups, every card in its place")
        check(driver.execute_script("return document.querySelectorAll('#groups .card').length") == len(entries),
              "every card is back in a group")
        errors = console_errors(driver)
        check(not errors, "console errors: %s" % errors)

    def filters_show_only_the_pages_asked_for():
        load(driver, index_url)
        with_faces = sorted(relative(e) for e in entries if e["faces"] > 0)
        check(with_faces and all(name.startswith("faces/") for name in with_faces),
              "the face fixtures (and only they) have faces: %s" % with_faces)
        choose("show", "faces")
        shown = sorted(card["name"] for card in visible_cards())
        check(shown == with_faces, "with faces shows %s, expected %s" % (shown, with_faces))
        check(driver.find_element(By.ID, "shown").text == "%d of %d pages" % (len(with_faces), len(entries)),
              "the count says what is shown: %r" % driver.find_element(By.ID, "shown").text)
        visible_groups = driver.execute_script("return Array.prototype.filter.call(document.querySelectorAll('#groups .group'),"
                                               " function (g) { return !g.hidden; }).length")
        check(visible_groups == 1, "only the faces group is shown (%d)" % visible_groups)
        shot("index-with-faces")
        choose("show", "failed")
        failed = sorted(relative(e) for e in entries if e["status"] != "ok")
        check(sorted(card["name"] for card in visible_cards()) == failed and failed, "not read shows %s" % failed)
        choose("show", "low")
        low = sorted(relative(e) + (" · page %d" % (e["pageIndex"] + 1) if e["source"].endswith(".tif") else "")
                     for e in entries if e.get("lowConfidence"))
        check(low == ["review/scripts.png"], "the page in scripts English does not read (and only it) is of low confidence: %s" % low)
        check(sorted(card["name"] for card in visible_cards()) == low, "low confidence shows %s" % low)
        choose("show", "suspect")
        suspect = sorted(relative(e) for e in entries if e.get("suspect"))
        check(suspect == ["review/speckled.png"], "the speckled page (and only it) is suspect: %s" % suspect)
        shown = sorted(card["name"] for card in visible_cards())
        check(shown == suspect, "suspect shows %s, expected %s" % (shown, suspect))
        choose("show", "")
        folder = driver.execute_script("var s = document.getElementById('folder'); for (var i = 0; i < s.options.length; i++)"
                                       " if (s.options[i].text === 'faces/') return s.options[i].value; return null;")
        check(folder is not None, "the folder filter offers faces/")
        choose("folder", folder)
        check(sorted(card["name"] for card in visible_cards()) == sorted(relative(e) for e in entries if "/faces/" in e["source"]),
              "the folder filter shows the folder's pages")
        choose("sort", "-words")
        check(all(card["name"].startswith("faces/") for card in visible_cards()), "a filter holds when sorted")
        choose("folder", "")
        choose("sort", "")
        check(len(visible_cards()) == len(entries), "no filter shows every page")
        errors = console_errors(driver)
        check(not errors, "console errors: %s" % errors)

    def thumbnails_load_lazily():
        # Served over HTTP, as from a web server or a shared drive: file:// records no resource timing.
        import functools
        import http.server
        import threading
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=report)
        handler.func.log_message = lambda *arguments: None
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            driver.set_window_size(*DESKTOP)
            load(driver, "http://127.0.0.1:%d/index.html" % server.server_address[1])
            time.sleep(1.0)
            images = driver.execute_script("return document.querySelectorAll('.card img').length")
            attributes = driver.execute_script("""
                return Array.prototype.every.call(document.querySelectorAll('.card img'), function (img) {
                  return img.getAttribute('loading') === 'lazy' && img.getAttribute('width') && img.getAttribute('height');
                });""")
            check(attributes, "every thumbnail is lazy, with a width and height")
            count = ("return performance.getEntriesByType('resource').filter(function (e) {"
                     " return e.initiatorType === 'img'; }).length")
            requested = driver.execute_script(count)
            check(images > MANY, "%d thumbnails" % images)
            check(0 < requested < images / 3, "%d of %d thumbnails requested at first paint" % (requested, images))
            for _ in range(3):
                driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
                time.sleep(0.7)
            later = driver.execute_script(count)
            check(later > requested, "scrolling to the end loads more (%d, then %d)" % (requested, later))
            print("     %d of %d thumbnails requested at first paint, %d after scrolling to the end" % (requested, images, later))
            errors = [error for error in console_errors(driver) if "favicon.ico" not in error]
            check(not errors, "console errors: %s" % errors)
        finally:
            server.shutdown()
            server.server_close()

    def download_links_resolve_to_files():
        load(driver, index_url)
        links = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('.downloads a'),"
                                      " function (a) { return [a.textContent, a.href]; })")
        names = [name for name, _ in links]
        check(names == ["gloss.json", "gloss.sqlite"], "download links: %s" % names)
        for name, href in links:
            path = urllib.parse.unquote(urllib.parse.urlparse(href).path)
            check(os.path.isfile(path) and os.path.getsize(path) > 0, "%s links to %s, not a file" % (name, path))
        with open(urllib.parse.unquote(urllib.parse.urlparse(links[1][1]).path), "rb") as database:
            check(database.read(16) == b"SQLite format 3\x00", "gloss.sqlite is an SQLite database")
        check(json.load(open(urllib.parse.unquote(urllib.parse.urlparse(links[0][1]).path)))["pages"] == entries,
              "gloss.json is the manifest")
        per_card = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('.card'),"
                                         " function (c) { return c.querySelectorAll('a').length; })")
        check(max(per_card) == 1, "a card links its page and nothing more")

    def the_phone_layout_keeps_every_control_on_screen():
        driver.set_window_size(*PHONE)
        load(driver, index_url)
        width = driver.execute_script("return document.documentElement.clientWidth")
        check(driver.execute_script("return document.documentElement.scrollWidth") <= width,
              "the page scrolls sideways at %dx%d" % PHONE)
        outside = driver.execute_script("""
            var width = document.documentElement.clientWidth;
            return Array.prototype.filter.call(document.querySelectorAll('input, select, button, .downloads a, h1'), function (el) {
              var box = el.getBoundingClientRect();
              return box.width > 0 && (box.left < 0 || box.right > width);
            }).map(function (el) { return el.id || el.textContent; });""")
        check(not outside, "controls off-screen: %s" % outside)
        clipped = driver.execute_script("""
            return Array.prototype.filter.call(document.querySelectorAll('.card .name'), function (name) {
              var box = name.getBoundingClientRect();
              return box.width > 0 && (name.scrollWidth > name.clientWidth + 1 || box.width < 120);
            }).length;""")
        check(clipped == 0, "%d card titles clipped or too narrow to read" % clipped)
        size = driver.execute_script("return parseFloat(getComputedStyle(document.querySelector('.card .name')).fontSize)")
        check(size >= 12, "titles at %s px" % size)
        shot("index-phone-%dx%d" % PHONE)
        driver.set_window_size(*DESKTOP)

    def the_search_box_reads_what_people_type_as_gloss_search_does():
        load(driver, index_url)
        found_any = 0
        for query in TYPED_QUERIES:
            cli = subprocess.run([args.gloss, "search", report, query, "--json", "--limit", "1000"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(cli.returncode in (0, 1), "gloss search %r exited %d: %s" % (query, cli.returncode, cli.stderr.strip()))
            expected = [result["html"] for result in json.loads(cli.stdout)["results"]]
            field = driver.find_element(By.ID, "search")
            field.clear()
            field.send_keys(query)
            time.sleep(0.3)
            deadline = time.time() + 5
            status = ""
            while time.time() < deadline:
                status = driver.find_element(By.ID, "search-status").text
                if status and "so far" not in status:
                    break
                time.sleep(0.1)
            check(not status.startswith("Query error"), "the search box refuses %r: %s" % (query, status))
            listed = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('#result-list a'),"
                                           " function (a) { return a.getAttribute('href').split('#q=')[0]; })")
            check(sorted(listed) == sorted(expected), "%r: the index lists %s, gloss search %s" % (query, listed, expected))
            found_any += 1 if expected else 0
        # The page with the punctuation is read by OCR, so allow a word or two to come out otherwise.
        check(found_any >= len(TYPED_QUERIES) - 2, "only %d of the queries found a page" % found_any)
        for query in ["quick AND", "(harbour OR"]:
            cli = subprocess.run([args.gloss, "search", report, query], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            check(cli.returncode == 2, "gloss search %r, FTS5 syntax on purpose but wrong, exited %d" % (query, cli.returncode))
        fts = subprocess.run([args.gloss, "search", report, "quick-", "--fts"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(fts.returncode == 2, "gloss search --fts takes quick- as FTS5 syntax (a column filter) and refuses it")
        shot("index-search-typed")
        errors = console_errors(driver)
        check(not errors, "console errors: %s" % errors)

    def enter_opens_the_first_page_found_for_the_query_as_typed():
        # Typed with Enter at once, before the search data is in and before the list is drawn:
        # Enter waits for the search of the whole query, then opens its first page.
        load(driver, index_url)
        from selenium.webdriver.common.keys import Keys
        driver.find_element(By.ID, "search").send_keys("forget", Keys.ENTER)
        deadline = time.time() + 5
        while "index.html" in driver.current_url and time.time() < deadline:
            time.sleep(0.1)
        url = urllib.parse.unquote(driver.current_url)
        check("punctuated-page" in url and url.endswith("#q=forget"), "Enter opened %s" % url)

    try:
        run.test("titles are relative, numbered only for files of several pages", titles_are_relative_and_numbered_only_for_files_of_several_pages)
        run.test("pages are grouped by folder or file", pages_are_grouped_by_folder_or_file)
        run.test("sorting orders the cards", sorting_orders_the_cards)
        run.test("filters show only the pages asked for", filters_show_only_the_pages_asked_for)
        run.test("thumbnails load lazily", thumbnails_load_lazily)
        run.test("download links resolve to files", download_links_resolve_to_files)
        run.test("the phone layout keeps every control on screen", the_phone_layout_keeps_every_control_on_screen)
        run.test("the search box reads what people type as gloss search does", the_search_box_reads_what_people_type_as_gloss_search_does)
        run.test("Enter opens the first page found for the query as typed", enter_opens_the_first_page_found_for_the_query_as_typed)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    run.conclude()


if __name__ == "__main__":
    main()
