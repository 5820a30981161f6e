#!/usr/bin/python3
"""The page view's Preparation section, in headless Chromium from file://: a page stored turned
says it was turned 90° clockwise, a tilted one which way it was levelled, an upright page says it
was read as it came, and a page read with --prepare none has no section at all.

    /usr/bin/python3 tests-browser/test_preparation_panel.py --gloss .build/release/gloss [--artifacts DIR]

Reuses test_viewer.py's helpers. The turned page is fixtures/text/sans.png turned 90° counter-
clockwise with Pillow. The last line is "N passed, N failed".
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_viewer as viewer  # noqa: E402  (skips the run when Selenium is missing)
from test_viewer import Run, check, load  # noqa: E402

ROOT = viewer.ROOT


def turn_counter_clockwise(source, target, degrees=90):
    """Writes `source` turned `degrees` counter-clockwise (negative: clockwise) on white paper:
    a page Gloss must turn back the other way."""
    from PIL import Image  # python3-pil, which make setup installs
    resample = Image.NEAREST if degrees % 90 == 0 else Image.BICUBIC
    Image.open(source).rotate(degrees, expand=True, fillcolor=255, resample=resample).save(target)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gloss", default=os.path.join(ROOT, ".build/release/gloss"))
    parser.add_argument("--artifacts", default=os.path.join(ROOT, ".build/browser-test"))
    args = parser.parse_args()

    chromium, driver_path = viewer.browser_tools()
    os.makedirs(args.artifacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gloss-preparation-")
    inputs = os.path.join(work, "in")
    os.makedirs(inputs)
    sans = os.path.join(ROOT, "fixtures/text/sans.png")
    turn_counter_clockwise(sans, os.path.join(inputs, "turned.png"))
    turn_counter_clockwise(sans, os.path.join(inputs, "tilted.png"), degrees=-2)
    shutil.copy(sans, os.path.join(inputs, "upright.png"))
    reports = {}
    for name, extra in [("prepared", []), ("unprepared", ["--prepare", "none"])]:
        manifest = viewer.annotate_report("preparation panel test", args.gloss,
                                          ["in", "-o", name, "--format", "html,json"] + extra, cwd=work, statuses=(0,))
        reports[name] = {os.path.basename(entry["source"]): entry for entry in manifest["pages"]}

    def page_url(report, name):
        return "file://" + urllib.parse.quote(os.path.join(work, report, reports[report][name]["outputs"]["html"]))

    def page_json(report, name):
        return json.load(open(os.path.join(work, report, reports[report][name]["outputs"]["json"])))

    driver = viewer.browser(chromium, driver_path)
    driver.set_window_size(1400, 1000)
    run = Run(args)

    def js(script, *arguments):
        return driver.execute_script(script, *arguments)

    def open_section(report, name):
        """Loads the page and returns its Preparation section as the reader sees it, or None."""
        load(driver, page_url(report, name))
        errors = viewer.console_errors(driver)
        check(not errors, "console errors: %s" % errors)
        return js("""var s = document.getElementById('preparation'); if (!s) return null;
            s.scrollIntoView({block: 'center'});
            var b = s.getBoundingClientRect(), info = document.querySelector('.info-section');
            return {text: s.innerText, heading: s.querySelector('h3') ? s.querySelector('h3').textContent : '',
                    inInfo: !!info && info.contains(s), shown: b.width > 0 && b.height > 0 && getComputedStyle(s).display !== 'none',
                    steps: Array.prototype.map.call(s.querySelectorAll('li[data-step]'), function (li) {
                      return {step: li.getAttribute('data-step'), text: li.querySelector('.step').textContent,
                              ms: li.querySelector('.ms').textContent, changed: li.classList.contains('changed')}; }),
                    asItCame: s.querySelector('.as-it-came') ? s.querySelector('.as-it-came').textContent : null};""")

    def a_turned_page_says_it_was_turned():
        record = page_json("prepared", "turned.png").get("preparation")
        check(record is not None, "the turned page's JSON has no preparation record")
        check(record["rotation"] == 90, "Gloss turned the page by %s, not 90 (the panel is tested on 90)" % record["rotation"])
        section = open_section("prepared", "turned.png")
        driver.save_screenshot(os.path.join(args.artifacts, "preparation-turned.png"))
        check(section is not None, "no Preparation section on the turned page")
        check(section["shown"] and section["inInfo"], "the section is not shown in the info panel: %s" % section)
        check(section["heading"] == "Preparation", "heading %r" % section["heading"])
        orientation = [step for step in section["steps"] if step["step"] == "orientation"]
        check(orientation and orientation[0]["text"].startswith("Turned 90° clockwise") and orientation[0]["changed"],
              "the orientation step reads %s" % orientation)
        check("(by " in orientation[0]["text"] and "rows of letters)" in orientation[0]["text"],
              "no rows of letters in %r" % orientation[0]["text"])
        check(section["asItCame"] is None, "a turned page says it was read as it came")
        for step in section["steps"]:
            check(step["ms"].endswith(" ms"), "step %s has no time: %r" % (step["step"], step["ms"]))
        check("Turned 90° clockwise" in section["text"], "the reader does not see the turn: %r" % section["text"])

    def an_upright_page_says_it_was_read_as_it_came():
        record = page_json("prepared", "upright.png").get("preparation")
        check(record is not None and record["rotation"] == 0, "the upright page's record: %s" % record)
        section = open_section("prepared", "upright.png")
        check(section is not None and section["shown"], "no Preparation section on the upright page")
        check(not any(step["text"].startswith("Turned") for step in section["steps"]), "an upright page says it was turned")
        changed = record["skew"] != 0 or record["scale"] != 1 or record["binarization"] != "tesseract" or record["wordsAdded"] > 0
        if changed:
            check(section["asItCame"] is None, "a changed page says it was read as it came")
            check(any(step["changed"] for step in section["steps"]), "the upright page's change is not shown: %s" % section["steps"])
        else:
            check(section["asItCame"] and "as it came" in section["asItCame"], "the page does not say it was read as it came")
        orientation = [step for step in section["steps"] if step["step"] == "orientation"]
        check(not orientation or not orientation[0]["changed"], "the orientation step of an upright page: %s" % orientation)

    def a_tilted_page_says_which_way_it_was_levelled():
        record = page_json("prepared", "tilted.png")["preparation"]
        check(record["rotation"] == 0 and 1.5 <= record["skew"] <= 2.5,
              "Gloss measured the page tilted 2° clockwise as rotation %s, skew %s" % (record["rotation"], record["skew"]))
        section = open_section("prepared", "tilted.png")
        check(section is not None, "no Preparation section on the tilted page")
        deskew = [step for step in section["steps"] if step["step"] == "deskew"]
        check(deskew and deskew[0]["changed"] and deskew[0]["text"].startswith("Levelled by turning ")
              and deskew[0]["text"].endswith("° counter-clockwise"), "the levelling step reads %s" % deskew)
        check(section["asItCame"] is None, "a levelled page says it was read as it came")

    def a_page_read_without_preparing_has_no_section():
        for name in ["turned.png", "tilted.png", "upright.png"]:
            check("preparation" not in page_json("unprepared", name), "--prepare none wrote a record for %s" % name)
            check(open_section("unprepared", name) is None, "--prepare none shows a Preparation section for %s" % name)
            check(js("return !!document.querySelector('.info-section .info')"), "the info panel itself is missing")
            check("Preparation" not in js("return document.querySelector('.info-section').innerText"),
                  "the info panel mentions Preparation on %s" % name)

    def the_text_of_a_turned_page_lies_on_its_words():
        """Each word's invisible glyphs cover its box on the picture, so hover, a click to
        proofread and a drag select that word (set in the file's pixels, a line running up the
        page gave glyphs as tall as the line is long)."""
        open_section("prepared", "turned.png")
        pairs = js("""return Array.prototype.map.call(document.querySelectorAll('.layer.text .tw'), function (t) {
            var r = document.getElementById('w' + t.getAttribute('data-i')).getBoundingClientRect(),
                g = t.getBoundingClientRect();
            var w = Math.max(0, Math.min(r.right, g.right) - Math.max(r.left, g.left)),
                h = Math.max(0, Math.min(r.bottom, g.bottom) - Math.max(r.top, g.top));
            return {text: t.textContent, shared: w * h / Math.max(1, g.width * g.height),
                    covered: w * h / Math.max(1, r.width * r.height)};
          });""")
        check(len(pairs) >= 40, "only %d words in the text layer" % len(pairs))
        astray = [pair for pair in pairs if pair["shared"] < 0.5 or pair["covered"] < 0.5]
        check(not astray, "%d of %d words' glyphs miss their boxes: %s" % (len(astray), len(pairs), astray[:3]))
        # With the words' layer hidden, finding a word still scrolls it into sight.
        js("document.querySelector('[data-layer=\"words\"]').click();")
        check(js("return getComputedStyle(document.querySelector('.layer.words')).display") == "none", "the words' layer did not hide")
        found = js("""var f = document.getElementById('find'); f.value = 'harbour';
            f.dispatchEvent(new Event('input')); f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
            var hit = document.querySelector('.layer.words .word.hit'), v = document.getElementById('viewer');
            var r = hit ? hit.getBoundingClientRect() : null, b = v ? v.getBoundingClientRect() : null;
            return {shown: getComputedStyle(document.querySelector('.layer.words')).display !== 'none',
                    inSight: !!r && !!b && r.width > 0 && r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom};""")
        check(found["shown"] and found["inSight"], "a word found with the words' layer hidden: %s" % found)

    def the_steps_are_legible():
        open_section("prepared", "turned.png")
        ratios = viewer.contrast_ratios(driver, "#preparation h3, #preparation .step, #preparation .ms")
        low = [(name, round(ratio, 2)) for name, ratio in ratios if ratio < 4.5]
        check(len(ratios) >= 3 and not low, "preparation text below 4.5:1 contrast: %s" % low)
        for size, mobile in [((1400, 1000), False), ((390, 844), True)]:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile})
            open_section("prepared", "turned.png")
            overflow = js("""var s = document.getElementById('preparation'), panel = document.getElementById('panel');
                var edge = Math.min(s.getBoundingClientRect().right, panel.getBoundingClientRect().right, window.innerWidth);
                return Array.prototype.filter.call(s.querySelectorAll('.step, .ms'), function (el) {
                  return el.getBoundingClientRect().right > edge + 1; }).length;""")
            check(overflow == 0, "%d preparation cells overflow the panel at %dx%d" % (overflow, size[0], size[1]))
        driver.save_screenshot(os.path.join(args.artifacts, "preparation-phone.png"))
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    try:
        run.test("a page stored turned says it was turned 90° clockwise, with each step's time", a_turned_page_says_it_was_turned)
        run.test("an upright page says it was read as it came (or what changed)", an_upright_page_says_it_was_read_as_it_came)
        run.test("a page tilted 2° clockwise says it was levelled counter-clockwise", a_tilted_page_says_which_way_it_was_levelled)
        run.test("a page read with --prepare none has no Preparation section", a_page_read_without_preparing_has_no_section)
        run.test("the text of a page read turned lies on its words", the_text_of_a_turned_page_lies_on_its_words)
        run.test("the Preparation section has contrast and fits the panel on desktop and phone", the_steps_are_legible)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    run.conclude()


if __name__ == "__main__":
    main()
