#!/usr/bin/env python3
"""Checks of the scoring rule and of the hOCR reader (python3 bench/ocr-quality/test_scoring.py)."""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make  # noqa: E402
import score  # noqa: E402


class Tokens(unittest.TestCase):
    def test_punctuation_and_symbols_are_stripped_from_the_ends_only(self):
        self.assertEqual(score.tokens('"Who dah?" ($43,456.78) e-mail, #90'),
                         ["Who", "dah", "43,456.78", "e-mail", "90"])

    def test_typographic_quotes_dashes_and_ligatures_fold(self):
        self.assertEqual(score.tokens("It\u2019s state\u2014of\u2013the-art \ufb01rst"),
                         score.tokens("It's state-of-the-art first"))

    def test_bullets_and_rules_are_no_words(self):
        self.assertEqual(score.tokens("\u2022 Optional | remote \u2014 control."), ["Optional", "remote", "control"])

    def test_case_counts(self):
        self.assertEqual(score.bag_f1(["Linn"], ["LINN"])[2], 0.0)


class BagOfWords(unittest.TestCase):
    def test_repeated_words_count_as_often_as_they_occur(self):
        precision, recall, f1 = score.bag_f1(["the", "the", "fox"], ["the", "fox", "fox"])
        self.assertAlmostEqual(precision, 2 / 3)
        self.assertAlmostEqual(recall, 2 / 3)
        self.assertAlmostEqual(f1, 2 / 3)

    def test_order_does_not_count(self):
        self.assertEqual(score.bag_f1(["a", "b", "c"], ["c", "a", "b"])[2], 1.0)

    def test_nothing_read_scores_zero(self):
        self.assertEqual(score.bag_f1(["a"], [])[2], 0.0)


class CharacterErrorRate(unittest.TestCase):
    def test_whitespace_runs_are_one_space(self):
        self.assertEqual(score.cer("quick  brown\nfox", "quick brown fox"), 0.0)

    def test_edits_over_the_truth_length(self):
        self.assertAlmostEqual(score.cer("abcd", "abxd"), 0.25)
        self.assertAlmostEqual(score.cer("abcd", ""), 1.0)

    def test_both_distances_agree(self):
        for a, b, d in [("kitten", "sitting", 3), ("", "abc", 3), ("flaw", "lawn", 2)]:
            self.assertEqual(score.plain_levenshtein(a, b), d)
            self.assertEqual(score.levenshtein(a, b), d)


class Hocr(unittest.TestCase):
    def test_words_are_read_line_by_line_with_entities_decoded(self):
        hocr = (b'<div class="ocr_page"><span class="ocr_line" title="bbox 0 0 9 9">'
                b'<span class="ocrx_word" title="x">Part</span> <span class="ocrx_word"><em>No.</em></span></span>'
                b'<span class="ocr_line"><span class="ocrx_word">AT&amp;T</span></span></div>')
        self.assertEqual(make.hocr_to_text(hocr), "Part No.\nAT&T\n")


if __name__ == "__main__":
    unittest.main()
