#!/usr/bin/python3
"""The page viewer as a reviewer's tool, in headless Chromium from file://: text selected and
copied from the scan, phone and desktop layouts, downloads, the face list, review keys,
printing and basic accessibility.

    /usr/bin/python3 tests-browser/test_page_review.py --gloss .build/release/gloss
        [--artifacts DIR] [--screenshots docs/screenshots]

Reuses test_viewer.py's helpers. Screenshots go to --artifacts; with --screenshots the small
desktop and phone pictures for the README are written there (page-desktop.png, page-phone.png).
The last line is "N passed, N failed".
"""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_viewer as viewer  # noqa: E402  (skips the run when Selenium is missing)
from test_viewer import Failure, Run, check, load  # noqa: E402

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ROOT = viewer.ROOT
ODD_NAME = "scan #1 (copy).png"
DESKTOP = (1400, 900)
PHONE = (390, 844)
CONTROLS = "button, input, select, textarea, a[href], summary, [tabindex]"
TOOLBAR_LABELS = ["Review below", "Blocks", "Find on page", "Expand panel", "All pages", "Keys:", "Previous match"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", default=os.path.join(ROOT, ".build/release/gloss"))
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/browser-test"))
    parser.add_argument("--screenshots", help="write the README's page-desktop.png and page-phone.png here")
    args = parser.parse_args()

    chromium, driver_path = viewer.browser_tools()
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gloss-review-")
    inputs = os.path.join(work, "in")
    report = os.path.join(work, "report")
    os.makedirs(inputs)
    shutil.copy(os.path.join(ROOT, "fixtures/text/sans.png"), inputs)
    shutil.copy(os.path.join(ROOT, "fixtures/text/sans.png"), os.path.join(inputs, ODD_NAME))
    shutil.copy(os.path.join(ROOT, "fixtures/faces/astronaut-trio.png"), inputs)
    if args.screenshots:
        shutil.copy(os.path.join(ROOT, "fixtures/scans/page.png"), os.path.join(inputs, "scan.png"))
    # Run from the work folder with relative paths: the links to the originals are made from those.
    manifest = viewer.annotate_report("page review test", args.gloss,
                                      ["in", "-o", "report", "--format", "html,json,hocr,alto,tsv,txt,pdf"],
                                      cwd=work, statuses=(0,))
    entries = {os.path.basename(entry["source"]): entry for entry in manifest["pages"]}
    truth = json.load(open(os.path.join(ROOT, "fixtures/text/sans.json")))

    def page_url(name):
        return "file://" + urllib.parse.quote(os.path.join(report, entries[name]["outputs"]["html"]))

    def page_json(name):
        return json.load(open(os.path.join(report, entries[name]["outputs"]["json"])))

    sans_url = page_url("sans.png")
    faces_url = page_url("astronaut-trio.png")
    sans = page_json("sans.png")

    driver = viewer.browser(chromium, driver_path)
    run = Run(args)

    def shot(name):
        path = os.path.join(args.artifacts, name + ".png")
        driver.save_screenshot(path)
        return path

    def window(size, mobile=False):
        """The layout viewport exactly `size`, as a phone or a desktop would have it."""
        driver.set_window_size(max(size[0], 500), size[1] + 200)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile})

    def js(script, *arguments):
        return driver.execute_script(script, *arguments)

    def rect_of(index):
        return js("var b = document.getElementById('w' + arguments[0]).getBoundingClientRect();"
                  "return {left: b.left, top: b.top, right: b.right, bottom: b.bottom};", index)

    def drag(start, end, keys_down=None):
        actions = ActionChains(driver, duration=50)
        pointer = actions.w3c_actions.pointer_action
        if keys_down:
            actions.w3c_actions.key_action.key_down(keys_down)
        pointer.move_to_location(int(start[0]), int(start[1]))
        pointer.pointer_down()
        for k in range(1, 6):
            pointer.move_to_location(int(start[0] + (end[0] - start[0]) * k / 5), int(start[1] + (end[1] - start[1]) * k / 5))
        pointer.pointer_up()
        if keys_down:
            actions.w3c_actions.key_action.key_up(keys_down)
        actions.perform()

    def line_words(line):
        return [(index, word) for index, word in enumerate(sans["words"]) if word["line"] == line]

    def select_lines(first, last):
        """Drags from just inside the first word of line `first` to the end of line `last`."""
        js("window.getSelection().removeAllRanges()")
        start = rect_of(line_words(first)[0][0])
        end = rect_of(line_words(last)[-1][0])
        drag((start["left"] + 1, (start["top"] + start["bottom"]) / 2), (end["right"] - 1, (end["top"] + end["bottom"]) / 2))
        return js("return window.getSelection().toString()")

    def clipboard_after_copy():
        """What a copy puts on the clipboard, read back through the Clipboard API."""
        try:
            driver.execute_cdp_cmd("Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
        except Exception as error:  # older Chromium: the selection's text stands in
            return None, str(error)
        js("document.execCommand('copy')")
        value = driver.execute_async_script(
            "var done = arguments[arguments.length - 1];"
            "navigator.clipboard.readText().then(done, function (e) { done('ERROR ' + e); });")
        if value is None or value.startswith("ERROR"):
            return None, value
        return value, None

    def words_of(text):
        return " ".join(text.split())

    def selecting_and_copying_a_line_gives_its_words():
        window(DESKTOP)
        load(driver, sans_url)
        line0 = " ".join(word["text"] for _, word in line_words(0))
        line1 = " ".join(word["text"] for _, word in line_words(1))
        check(line0 == "The quick brown fox jumps", "fixture's first line: %r" % line0)
        for zoom in ["fit", "zoomed"]:
            if zoom == "zoomed":
                driver.find_element(By.ID, "zoom-in").click()
                js("document.getElementById('viewer').scrollTo(0, 0)")
                end = rect_of(line_words(1)[-1][0])
                frame = js("var b = document.getElementById('viewer').getBoundingClientRect(); return [b.right, b.bottom];")
                check(end["right"] < frame[0] and end["bottom"] < frame[1], "the zoomed lines are in sight")
            before = js("var v = document.getElementById('viewer'); return [v.scrollLeft, v.scrollTop];")
            selected = select_lines(0, 0)
            check(words_of(selected) == line0, "selecting line 1 (%s) gives %r" % (zoom, selected))
            after = js("var v = document.getElementById('viewer'); return [v.scrollLeft, v.scrollTop];")
            check(before == after, "selecting does not pan (%s to %s)" % (before, after))
            two = select_lines(0, 1)
            check(words_of(two) == line0 + " " + line1, "two lines selected (%s): %r" % (zoom, two))
            check("\n" in two.strip(), "the lines of a selection are separate lines: %r" % two)
        word = rect_of(line_words(2)[1][0])
        actions = ActionChains(driver)
        actions.w3c_actions.pointer_action.move_to_location(int((word["left"] + word["right"]) / 2), int((word["top"] + word["bottom"]) / 2))
        actions.perform()
        tip = driver.find_element(By.ID, "tip")
        check(tip.is_displayed() and tip.text.startswith(line_words(2)[1][1]["text"]), "hovering the text layer shows the word's tooltip: %r" % tip.text)
        copied, why = clipboard_after_copy()
        if copied is not None:
            check(words_of(copied) == line0 + " " + line1, "the copy holds the two lines: %r" % copied)
            print("     copied from the scan: %r" % copied)
        else:
            print("     note: clipboard not readable here (%s); checked the selection" % why)
        shot("review-selection")
        check(not viewer.console_errors(driver), "console errors")

    def panning_needs_space_or_the_margin():
        window(DESKTOP)
        load(driver, sans_url)
        for _ in range(3):
            driver.find_element(By.ID, "zoom-in").click()
        js("document.getElementById('viewer').scrollTo(200, 100)")
        middle = rect_of(line_words(2)[2][0])
        point = ((middle["left"] + middle["right"]) / 2, (middle["top"] + middle["bottom"]) / 2)
        scroll = "var v = document.getElementById('viewer'); return [v.scrollLeft, v.scrollTop];"
        before = js(scroll)
        drag(point, (point[0] - 120, point[1] - 60))
        check(js(scroll) == before, "a plain drag over the page does not pan")
        js("window.getSelection().removeAllRanges()")
        js("document.activeElement && document.activeElement.blur()")
        drag(point, (point[0] - 120, point[1] - 60), keys_down=Keys.SPACE)
        after = js(scroll)
        check(after[0] > before[0] + 60 and after[1] > before[1] + 30, "Space and drag pans: %s to %s" % (before, after))
        check(js("return window.getSelection().toString()") == "", "panning selects nothing")
        js("document.getElementById('viewer').scrollTo(0, 100)")
        frame = js("var b = document.getElementById('viewer').getBoundingClientRect(); return [b.left, b.top];")
        before = js(scroll)
        drag((frame[0] + 6, frame[1] + 300), (frame[0] + 6, frame[1] + 150))
        after = js(scroll)
        check(after[1] > before[1] + 100, "a drag on the margin pans: %s to %s" % (before, after))

    def controls_fit(size, mobile):
        """Every visible control lies inside the viewport's width, and those outside the panel's
        scrolled text inside its height too; nothing is cut by its container."""
        problems = js("""
            var width = innerWidth, height = innerHeight, out = [];
            var panel = document.getElementById('panel');
            document.querySelectorAll(arguments[0]).forEach(function (el) {
              var b = el.getBoundingClientRect();
              if (b.width === 0 && b.height === 0) return;
              if (getComputedStyle(el).visibility === 'hidden') return;
              var name = el.id || el.getAttribute('aria-label') || el.textContent.trim().slice(0, 20) || el.tagName;
              if (b.left < -1 || b.right > width + 1) out.push(name + ' x ' + Math.round(b.left) + '..' + Math.round(b.right));
              var inPanel = panel && panel.contains(el), inViewer = el.closest('#viewer');
              if (!inPanel && !inViewer && (b.top < -1 || b.bottom > height + 1)) out.push(name + ' y ' + Math.round(b.top) + '..' + Math.round(b.bottom));
            });
            document.querySelectorAll('.toolbar, .tools, .bar, .zoom, .pager').forEach(function (box) {
              if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'visible')
                out.push('cut: ' + box.className);
            });
            if (document.documentElement.scrollWidth > width + 1) out.push('page wider than the screen: ' + document.documentElement.scrollWidth);
            return out;""", CONTROLS)
        check(not problems, "off-screen or cut at %dx%d: %s" % (size[0], size[1], problems))

    def phone_and_desktop_layouts():
        for size, mobile in [((360, 740), True), ((3840, 2160), False), ((760, 900), False)]:
            window(size, mobile)
            load(driver, sans_url)
            controls_fit(size, mobile)
        window(DESKTOP)
        load(driver, sans_url)
        controls_fit(DESKTOP, False)
        for _ in range(3):
            driver.find_element(By.ID, "zoom-in").click()
        zoomed_stroke = js("return parseFloat(getComputedStyle(document.getElementById('w0')).strokeWidth)")
        check(zoomed_stroke == 1.5, "outlines are 1.5 px on a large page: %s" % zoomed_stroke)
        check(js("return document.getElementById('menu-toggle').offsetParent") is None,
              "no menu button on a desktop")
        driver.find_element(By.ID, "zoom-page").click()
        fitted = js("var s = document.getElementById('page-svg').getBoundingClientRect(), v = document.getElementById('viewer');"
                    "return [s.height, v.clientHeight, document.getElementById('zoom-value').textContent];")
        check(fitted[0] <= fitted[1], "fit page shows the whole page: %s" % fitted)
        driver.find_element(By.ID, "zoom-fit").click()
        width = js("return [document.getElementById('page-svg').getBoundingClientRect().width, document.getElementById('zoom-value').textContent]")
        check(width[1] == "%d%%" % round(width[0] / truth["width"] * 100), "the zoom shows %s for a page %s px wide" % (width[1], width[0]))
        shot("review-desktop-1400x900")
        window(PHONE, mobile=True)
        load(driver, sans_url)
        controls_fit(PHONE, True)
        chrome = js("return document.querySelector('.toolbar').getBoundingClientRect().bottom")
        check(chrome <= 130, "header and toolbar take %d px of 844" % chrome)
        panel = js("return document.getElementById('panel').getBoundingClientRect().height")
        check(panel >= 0.4 * PHONE[1], "the text panel is %d px, under 40%% of %d" % (panel, PHONE[1]))
        phone_stroke = js("return parseFloat(getComputedStyle(document.getElementById('w0')).strokeWidth)")
        check(phone_stroke < 1, "outlines thin out on a phone's small page: %s px" % phone_stroke)
        shot("review-phone-390x844")
        driver.find_element(By.ID, "menu-toggle").click()
        check(js("return document.getElementById('menu-toggle').getAttribute('aria-expanded')") == "true", "menu says it is open")
        check(driver.find_element(By.ID, "find").is_displayed(), "the menu holds find")
        controls_fit(PHONE, True)
        shot("review-phone-menu")
        driver.find_element(By.ID, "menu-toggle").click()
        driver.find_element(By.ID, "sheet-toggle").click()
        opened = js("return document.getElementById('panel').getBoundingClientRect().height")
        check(opened >= 0.6 * PHONE[1] and opened > panel, "the opened sheet is %d px" % opened)
        text = js("var b = document.getElementById('page-text').getBoundingClientRect(); return b.top")
        check(text < PHONE[1] * 0.6, "the text starts in sight once the sheet is open (%d)" % text)
        controls_fit(PHONE, True)
        shot("review-phone-sheet")
        check(not viewer.console_errors(driver), "console errors")
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        window(DESKTOP)

    def downloads_resolve_to_files():
        window(DESKTOP)
        for name in ["sans.png", ODD_NAME]:
            load(driver, page_url(name))
            info = dict(js("return Array.prototype.map.call(document.querySelectorAll('.info > div'),"
                           " function (row) { return [row.querySelector('dt').textContent, row.querySelector('dd').textContent]; })"))
            check(info.get("Size") == "960 × 528 px" and info.get("Resolution") == "300 ppi" and info.get("Language") == "eng",
                  "the info panel: %s" % info)
            check(info.get("Source") == "in/" + name, "the source as given: %r" % info.get("Source"))
            check(not driver.find_element(By.CSS_SELECTOR, ".timing-details .timings").is_displayed(), "timings start folded")
            links = js("""return Array.prototype.map.call(document.querySelectorAll('.downloads a, a.original'),
                         function (a) { return [a.getAttribute('data-format') || 'original', a.href]; });""")
            formats = sorted(format for format, _ in links)
            check(formats == sorted(["json", "hocr", "alto", "tsv", "txt", "pdf", "document", "documentText", "original"]),
                  "links: %s" % formats)
            for format, href in links:
                check(href.startswith("file://"), "%s links %s" % (format, href))
                path = urllib.request.url2pathname(urllib.parse.urlparse(href).path)
                check(os.path.isfile(path), "%s link %s reaches no file" % (format, href))
                if format == "original":
                    check(os.path.samefile(path, os.path.join(inputs, name)), "the original is %s" % path)
                else:
                    check(os.path.samefile(path, os.path.join(report, entries[name]["outputs"][format])),
                          "%s link is the manifest's file" % format)

    def faces_are_listed_with_crops_and_filtered():
        window(DESKTOP)
        load(driver, faces_url)
        faces = page_json("astronaut-trio.png")["faces"]
        check(len(faces) == 3, "the fixture has three faces: %d" % len(faces))
        items = js("""return Array.prototype.map.call(document.querySelectorAll('#face-list .face-item'), function (li) {
            var crop = li.querySelector('svg.crop'), image = crop && crop.querySelector('image');
            var b = crop ? crop.getBoundingClientRect() : {width: 0, height: 0};
            return {c: +li.getAttribute('data-c'), width: b.width, height: b.height, href: image && image.href.baseVal,
                    hidden: li.hidden, name: li.querySelector('button').getAttribute('aria-label')}; });""")
        check(len(items) == 3, "three faces listed: %s" % items)
        for item, face in zip(items, faces):
            check(item["width"] > 40 and item["height"] > 40, "a crop is drawn: %s" % item)
            check(abs(item["c"] - face["confidence"] * 100) < 0.06, "confidence %s for %s" % (item["c"], face["confidence"]))
            check(item["name"].startswith("Face ") and "%" in item["name"], "the face button is named: %r" % item["name"])
            image = os.path.join(os.path.dirname(os.path.join(report, entries["astronaut-trio.png"]["outputs"]["html"])),
                                 urllib.parse.unquote(item["href"]))
            check(os.path.isfile(image), "the crop draws from %s" % image)
        tabbable = js("return Array.prototype.every.call(document.querySelectorAll('#page-svg .face'),"
                      " function (g) { return g.tabIndex === 0; })")
        check(tabbable, "every face on the page is in the tab order")
        js("document.getElementById('f0').focus()")
        tip = driver.find_element(By.ID, "tip")
        check(tip.is_displayed() and tip.text.startswith("Face 1, confidence"), "face tooltip: %r" % tip.text)
        threshold = sorted(face["confidence"] * 100 for face in faces)[1]
        js("var s = document.getElementById('min-confidence'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));",
           int(threshold) + 0.0)
        expected = sum(1 for face in faces if face["confidence"] * 100 >= int(threshold))
        shown_items = js("return document.querySelectorAll('#face-list .face-item:not([hidden])').length")
        shown_shapes = js("return Array.prototype.filter.call(document.querySelectorAll('#page-svg .face'),"
                          " function (g) { return getComputedStyle(g).display !== 'none'; }).length")
        check(shown_items == expected and shown_shapes == expected,
              "slider at %d shows %d faces in the list and %d on the page, expected %d" % (int(threshold), shown_items, shown_shapes, expected))
        check(driver.find_element(By.ID, "face-count").text == "(%d of 3 shown)" % expected, "face count says so")
        js("var s = document.getElementById('min-confidence'); s.value = 0; s.dispatchEvent(new Event('input'));")
        driver.find_element(By.CSS_SELECTOR, "#face-list .face-button[data-f='2']").click()
        check(js("return document.activeElement && document.activeElement.id") == "f2", "a listed face focuses its box")
        shot("review-faces")
        check(not viewer.console_errors(driver), "console errors")

    def review_keys_move_between_low_confidence_words():
        window(DESKTOP)
        load(driver, sans_url)
        count = len(sans["words"])
        threshold = next(t for t in range(101) if 2 <= sum(1 for word in sans["words"] if word["confidence"] < t) < count)
        low = [index for index, word in enumerate(sans["words"]) if word["confidence"] < threshold]
        check(2 <= len(low) < len(sans["words"]), "a threshold flags some words: %d at %d" % (len(low), threshold))
        js("var s = document.getElementById('min-confidence'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", threshold)
        flagged = js("return Array.prototype.map.call(document.querySelectorAll('#page-svg .word.flag'), function (r) { return +r.getAttribute('data-i'); })")
        check(flagged == low, "flagged %s, expected %s" % (flagged, low))
        style = js("var r = document.getElementById('w' + arguments[0]); var s = getComputedStyle(r);"
                   "return [s.opacity, s.fill];", low[0])
        check(float(style[0]) == 1 and style[1] not in ("transparent", "rgba(0, 0, 0, 0)", "none"), "flagged words are highlighted: %s" % style)
        check(driver.find_element(By.ID, "low-count").text == "%d words" % len(low), "the count of words to review")
        for _ in range(4):
            driver.find_element(By.ID, "zoom-in").click()
        body = driver.find_element(By.TAG_NAME, "body")
        visits = []
        for key in ["]", "]", "]", "[", "["]:
            body.send_keys(key)
            active = js("var a = document.activeElement; return a && a.getAttribute('data-i')")
            visits.append(int(active) if active is not None else None)
            inside = js("""var r = document.activeElement.getBoundingClientRect(), v = document.getElementById('viewer').getBoundingClientRect();
                return r.left >= v.left && r.right <= v.right && r.top >= v.top && r.bottom <= v.bottom;""")
            check(inside, "the word to review is scrolled into view (%s)" % visits)
        expected = [low[0], low[1], low[2 % len(low)], low[1], low[0]]
        check(visits == expected, "] and [ visit %s, expected %s" % (visits, expected))
        check(driver.find_element(By.ID, "tip").is_displayed(), "the focused word shows its tooltip")
        shot("review-keys")

    def printing_gives_the_page_and_its_text_only():
        window(DESKTOP)
        load(driver, sans_url)
        pdftotext = viewer.find_tool(["pdftotext"])
        if not pdftotext:
            raise viewer.Skipped("pdftotext is not installed")
        data = driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": False})["data"]
        pdf = os.path.join(args.artifacts, "review-print.pdf")
        with open(pdf, "wb") as out:
            out.write(base64.b64decode(data))
        text = subprocess.run([pdftotext, "-layout", pdf, "-"], stdout=subprocess.PIPE, text=True, check=True).stdout
        flat = " ".join(text.split())
        for line in sans["lines"]:
            check(line["text"] in flat, "the print has %r" % line["text"])
        for label in TOOLBAR_LABELS:
            check(label not in text, "the print shows %r" % label)
        check(flat.count("harbour") == 1, "the text is printed once, not also from the invisible layer: %d" % flat.count("harbour"))
        pdftoppm = viewer.find_tool(["pdftoppm"])
        try:
            from PIL import Image
        except ImportError:
            Image = None
        if pdftoppm and Image:
            subprocess.run([pdftoppm, "-png", "-r", "60", "-f", "1", "-l", "1", pdf, os.path.join(args.artifacts, "review-print")], check=True)
            picture = [name for name in os.listdir(args.artifacts) if name.startswith("review-print") and name.endswith(".png")]
            image = Image.open(os.path.join(args.artifacts, sorted(picture)[0])).convert("RGB")
            green = sum(1 for r, g, b in image.getdata() if g > 90 and r < 90 and b < 90 and g - r > 40)
            check(green < 20, "no word outlines printed (%d green pixels)" % green)

    def controls_are_named_and_focus_is_visible():
        window(DESKTOP)
        load(driver, faces_url)
        unnamed = js("""var out = [];
            document.querySelectorAll('button, input, select, textarea, a[href], summary').forEach(function (el) {
              var name = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title');
              if (!name && el.labels && el.labels.length) name = el.labels[0].textContent;
              if (!name) name = el.textContent;
              if (!name || !name.trim()) out.push(el.outerHTML.slice(0, 80));
            });
            return out;""")
        check(not unnamed, "controls without a name: %s" % unnamed)
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.TAB)
        seen = 0
        for _ in range(25):
            outline = js("""var a = document.activeElement; if (!a || a === document.body) return null;
                var s = getComputedStyle(a);
                if (a instanceof SVGElement) return {tag: a.tagName, ok: true};
                return {tag: a.tagName + '#' + a.id, ok: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2};""")
            if outline:
                seen += 1
                check(outline["ok"], "focus is not visible on %s" % outline["tag"])
            driver.switch_to.active_element.send_keys(Keys.TAB)
        check(seen >= 20, "Tab reached %d controls" % seen)
        ratios = viewer.contrast_ratios(driver, ".summary, .toolbar label, .legend li, .keys, h2, .info dt, .face-marks, "
                                        ".zoom-value, .review-nav, .downloads a")
        low = [(name, round(ratio, 2)) for name, ratio in ratios if ratio < 4.5]
        check(ratios and not low, "text below 4.5:1 contrast: %s" % low)

    def readme_screenshots():
        from PIL import Image
        os.makedirs(args.screenshots, exist_ok=True)
        for name, size, mobile, scale in [("page-desktop", DESKTOP, False, 0.6), ("page-phone", PHONE, True, 0.7)]:
            window(size, mobile)
            load(driver, page_url("scan.png"))
            js("var s = document.getElementById('min-confidence'); s.value = 90; s.dispatchEvent(new Event('input'));")
            raw = shot("readme-" + name)
            image = Image.open(raw).convert("RGB")
            image = image.resize((int(image.width * scale), int(image.height * scale)), Image.LANCZOS)
            target = os.path.join(args.screenshots, name + ".png")
            image.quantize(colors=128, method=Image.MEDIANCUT, dither=Image.NONE).save(target, optimize=True)
            check(os.path.getsize(target) < 200 * 1024, "%s is %d bytes" % (target, os.path.getsize(target)))
            print("     wrote %s (%d KB)" % (target, os.path.getsize(target) // 1024))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    try:
        run.test("selecting and copying a line from the scan gives its words", selecting_and_copying_a_line_gives_its_words)
        run.test("panning needs Space (or the margin); a plain drag selects", panning_needs_space_or_the_margin)
        run.test("phone and desktop layouts keep every control on screen", phone_and_desktop_layouts)
        run.test("download links resolve to the page's files and the original", downloads_resolve_to_files)
        run.test("faces are listed with crops, reachable, and filtered by the slider", faces_are_listed_with_crops_and_filtered)
        run.test("review keys move between low-confidence words", review_keys_move_between_low_confidence_words)
        run.test("printing gives the page and its text, no controls", printing_gives_the_page_and_its_text_only)
        run.test("controls are named, focus is visible, text has contrast", controls_are_named_and_focus_is_visible)
        if args.screenshots:
            run.test("README screenshots", readme_screenshots)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    run.conclude()


if __name__ == "__main__":
    main()
