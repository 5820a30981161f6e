#!/usr/bin/env python3
"""Checks of the line agreement (on the page and on RapidOCR's own picture), of the tune/measure split, and of the pages RapidOCR is handed decoded (python3 bench/neural/test_bench.py)."""
import os, sys, unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "ocr-quality"))
import bench  # noqa: E402
import make  # noqa: E402


def line(text, x0, y0, x1, y1):
    return {"text": text, "box": [x0, y0, x1, y1]}


class Agreement(unittest.TestCase):
    def test_a_line_counts_when_the_overlapping_line_reads_the_same(self):
        rapid = [line("Summe 3,55", 10, 10, 200, 40), line("BAR EUR", 10, 50, 120, 80)]
        gloss = [line("BAR  EUR", 12, 52, 118, 79), line("Summe 3.55", 8, 11, 205, 41)]
        self.assertEqual(bench.agreement(rapid, gloss), (2, 2, 1))

    def test_the_same_text_elsewhere_on_the_page_is_no_match(self):
        rapid = [line("590 409", 600, 10, 760, 50)]
        gloss = [line("590 409", 600, 300, 760, 340)]
        self.assertEqual(bench.agreement(rapid, gloss), (1, 0, 0))

    def test_a_box_overlapping_less_than_half_is_no_match(self):
        # IoU of [0,0,100,10] and [60,0,160,10] is 40 / 160 = 0.25.
        self.assertEqual(bench.agreement([line("a", 0, 0, 100, 10)], [line("a", 60, 0, 160, 10)]), (1, 0, 0))

    def test_no_lines_from_gloss(self):
        self.assertEqual(bench.agreement([line("a", 0, 0, 10, 10)], []), (1, 0, 0))

    def test_iou_of_a_box_with_itself_is_one(self):
        self.assertEqual(bench.iou([1, 2, 11, 22], [1, 2, 11, 22]), 1.0)


class SameInput(unittest.TestCase):
    def test_lines_read_on_rapidocrs_picture_are_carried_to_the_page_by_its_ratios(self):
        # A 3000 x 1500 page is read by RapidOCR at 2016 x 1024 (ratios 1.488, 1.465).
        lines = bench.scaled_lines([line("Total", 100, 50, 300, 80)], 3000 / 2016, 1500 / 1024)
        self.assertEqual([round(v, 1) for v in lines[0]["box"]], [148.8, 73.2, 446.4, 117.2])
        self.assertEqual(lines[0]["text"], "Total")

    def test_gloss_reads_the_picture_untouched(self):
        self.assertIn("--prepare none", bench.SAME_INPUT_ARGS)
        self.assertIn("--engine neural", bench.SAME_INPUT_ARGS)


class Decoding(unittest.TestCase):
    def test_palette_and_cmyk_pages_are_decoded_by_pillow(self):
        self.assertTrue(all(bench.rapid_reader.misread(m) for m in ("P", "PA", "CMYK")))

    def test_grey_rgb_rgba_and_1_bit_pages_go_to_rapidocr_by_path(self):
        self.assertFalse(any(bench.rapid_reader.misread(m) for m in ("1", "L", "LA", "RGB", "RGBA")))


class Halves(unittest.TestCase):
    def pages(self, group, n):
        return [{"name": f"{group}-{i}", "group": group} for i in range(n)]

    def test_each_group_is_split_in_two_with_the_odd_page_in_tune(self):
        half = make.halves(self.pages("forms", 5) + self.pages("photos", 2))
        forms = [half[f"forms-{i}"] for i in range(5)]
        self.assertEqual((forms.count("tune"), forms.count("measure")), (3, 2))
        self.assertEqual(sorted(half[f"photos-{i}"] for i in range(2)), ["measure", "tune"])

    def test_the_order_of_the_list_does_not_matter(self):
        pages = self.pages("receipts", 7)
        self.assertEqual(make.halves(pages), make.halves(list(reversed(pages))))


if __name__ == "__main__":
    unittest.main()
