#!/usr/bin/env python3
"""Checks of the bench's rules: labels, the calibration's fit, the CER, the fused choice.

  python3 bench/reading/test_reading.py
"""
import os, random, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate, common, simulate  # noqa: E402
import score  # noqa: E402


def word(text, x, conf=90.0, line=0, w=40, y=0, h=20):
    return {"text": text, "box": {"x": x, "y": y, "width": w, "height": h}, "confidence": conf, "line": line}


class Labels(unittest.TestCase):
    def test_a_line_read_out_of_the_truths_order_is_right(self):
        truth = common.Truth(score.tokens("alpha beta gamma\ndelta epsilon zeta\neta theta"))
        self.assertEqual(truth.right(["delta", "epsilon", "zeta"]), [True, True, True])
        self.assertEqual(truth.right(["eta", "theta", "alpha", "beta"]), [True] * 4)

    def test_a_misread_word_is_wrong_and_its_neighbours_right(self):
        truth = common.Truth(score.tokens("the quick brown fox jumps"))
        self.assertEqual(truth.right(["quick", "brovn", "fox"]), [True, False, True])

    def test_a_word_the_truth_lacks_is_wrong(self):
        truth = common.Truth(score.tokens("one two"))
        self.assertEqual(truth.right(["three"]), [False])

    def test_words_of_punctuation_alone_have_no_label(self):
        reading = {"lines": [{"box": {"x": 0, "y": 0, "width": 100, "height": 20}}],
                   "words": [word("Total", 0), word("—", 50)]}
        lines = common.label_lines(common.reading_lines(reading), common.Truth(["Total"]))
        self.assertEqual([w["right"] for w in lines[0]["words"]], [True, None])

    def test_bag_labels_share_the_matches(self):
        words = [{"tokens": ["a"]}, {"tokens": ["a"]}, {"tokens": ["b"]}]
        self.assertEqual(common.bag_labels(words, ["a", "c"]), [0.5, 0.5, 0.0])


class Calibration(unittest.TestCase):
    def test_pooling_makes_the_rates_non_decreasing(self):
        bins = [{"n": 10, "raw": 10, "rate": 0.2}, {"n": 10, "raw": 20, "rate": 0.6},
                {"n": 10, "raw": 30, "rate": 0.4}, {"n": 10, "raw": 40, "rate": 0.9}]
        blocks = calibrate.pool_adjacent_violators(bins)
        rates = [r / n for n, _, r in blocks]
        self.assertEqual(rates, [0.2, 0.5, 0.9])
        self.assertEqual([s / n for n, s, _ in blocks], [10, 25, 40])

    def test_fit_follows_the_data(self):
        rng = random.Random(1)
        pairs = [(raw, 1.0 if rng.random() < raw / 100 else 0.0) for raw in (rng.uniform(0, 100) for _ in range(4000))]
        knots, _ = calibrate.fit(pairs, 10)
        self.assertTrue(all(a[1] <= b[1] for a, b in zip(knots, knots[1:])))
        self.assertAlmostEqual(common.interpolate(knots, 50), 0.5, delta=0.08)

    def test_interpolation_is_flat_outside_the_knots(self):
        knots = [(20, 0.1), (80, 0.9)]
        self.assertEqual(common.interpolate(knots, 0), 0.1)
        self.assertEqual(common.interpolate(knots, 100), 0.9)
        self.assertAlmostEqual(common.interpolate(knots, 50), 0.5)

    def test_ties_stay_in_one_bin(self):
        edges = calibrate.equal_count_bins([100.0] * 50 + [99.0] * 5 + [10.0], 10)
        self.assertEqual(edges, [99.0, 100.0])


class Distance(unittest.TestCase):
    def test_bit_parallel_equals_the_plain_distance(self):
        rng = random.Random(2)
        for _ in range(300):
            a = "".join(rng.choice("ab cé") for _ in range(rng.randint(0, 70)))
            b = "".join(rng.choice("abc d") for _ in range(rng.randint(0, 70)))
            self.assertEqual(common.levenshtein(a, b), score.plain_levenshtein(a, b), (a, b))


class Fusion(unittest.TestCase):
    def page(self, t_words, n_words, n_lines, truth):
        truth_text = truth
        return {"name": "p", "truth": truth_text, "truth_tokens": score.tokens(truth_text),
                "readings": {"tesseract": {"lines": [{"box": {"x": 0, "y": 0, "width": 400, "height": 20}}], "words": t_words},
                             "neural": {"lines": n_lines, "words": n_words}}}

    def setUp(self):
        self.knots = {"tesseract": [(0, 0.0), (100, 1.0)], "neural": [(0, 0.0), (100, 1.0)]}
        self.lines = [{"box": {"x": 0, "y": 0, "width": 190, "height": 22}},
                      {"box": {"x": 200, "y": 0, "width": 190, "height": 22}}]

    def test_words_go_to_the_line_holding_most_of_their_box(self):
        # "two" spans 170-210: 20 px of it in line 0 (0-190), 10 px in line 1 (200-390).
        # "three" spans 185-225: 5 px in line 0, 25 px in line 1. "far" is on no line.
        page = self.page([word("one", 10), word("two", 170), word("three", 185), word("far", 10, y=500)],
                         [word("one", 10, 99), word("two", 210, 99, line=1)], self.lines, "one two three")
        detected, orphans = simulate.prepare(page, self.knots, 0.5)
        self.assertEqual([w["text"] for w in detected[0]["tesseract"]], ["one", "two"])
        self.assertEqual([w["text"] for w in detected[1]["tesseract"]], ["three"])
        self.assertEqual([w["text"] for v in orphans.values() for w in v], ["far"])

    def test_a_sure_line_stays_tesseracts_and_an_unsure_one_takes_the_more_probable(self):
        line = {"tesseract": [dict(tokens=["x"], p=0.95)], "neural": [dict(tokens=["y"], p=0.99)]}
        self.assertEqual(simulate.decide(line, 0.9, "mean", "mean"), ("tesseract", False))
        self.assertEqual(simulate.decide(line, 0.97, "mean", "mean"), ("neural", True))
        line["neural"][0]["p"] = 0.5
        self.assertEqual(simulate.decide(line, 0.97, "mean", "mean"), ("tesseract", True))

    def test_a_line_without_tesseract_words_is_read_by_the_neural_reader(self):
        line = {"tesseract": [dict(tokens=[], p=0.1)], "neural": [dict(tokens=["y"], p=0.2)]}
        self.assertEqual(simulate.decide(line, 0.0, "mean", "mean"), ("neural", True))

    def test_gain_prefers_the_reading_with_more_likely_words(self):
        t = [dict(tokens=["a"], p=0.99)]
        n = [dict(tokens=["a"], p=0.97), dict(tokens=["b"], p=0.97)]
        line = {"tesseract": t, "neural": n}
        self.assertEqual(simulate.decide(line, 2.0, "mean", "mean")[0], "tesseract")
        self.assertEqual(simulate.decide(line, 2.0, "mean", "gain")[0], "neural")

    def test_tesseract_order_puts_lines_by_their_first_tesseract_word(self):
        detected = [{"tesseract": [{"order": 5}]}, {"tesseract": []}, {"tesseract": [{"order": 1}]}]
        self.assertEqual(simulate.line_order(detected, "tesseract"), [2, 0, 1])
        self.assertEqual(simulate.line_order(detected, "neural"), [0, 1, 2])


if __name__ == "__main__":
    unittest.main()
