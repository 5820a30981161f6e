@testable import GlossNeuralReading
import Testing

/// Greedy CTC decoding on hand-made probability rows: RapidOCR's rules, in milliseconds.
@Suite struct CTCDecoderTests {
    let decoder = FakeRows.decoder

    @Test func repeatsCollapseAndBlanksDrop() {
        // a a _ b b b _ _ a: "aba"; a blank between two a's keeps both.
        let steps: [(winner: Int, probability: Float)] = [(1, 0.6), (1, 0.8), (0, 0.9), (2, 0.7), (2, 0.95), (2, 0.5), (0, 0.9),
                                                          (0, 0.9), (1, 0.4)]
        let line = decoder.decode(FakeRows.rows(steps), steps: steps.count)
        #expect(line.text == "aba")
        #expect(line.characters.map(\.firstStep) == [0, 3, 8])
        #expect(line.characters.map(\.lastStep) == [1, 5, 8])
        // The probability at its first step is RapidOCR's; the peak is the run's highest.
        #expect(line.characters.map(\.probability) == [0.6, 0.7, 0.4])
        #expect(line.characters.map(\.peak) == [0.8, 0.95, 0.4])
        #expect(abs(line.confidence - (0.6 + 0.7 + 0.4) / 3) < 1e-6)
        let twice = decoder.decode(FakeRows.rows([(1, 0.9), (0, 0.9), (1, 0.9)]), steps: 3)
        #expect(twice.text == "aa")
    }

    @Test func wordsAreTheRunsBetweenSpaces() {
        let steps = FakeRows.spelled(" ab  c ", probability: 0.8)
        let line = decoder.decode(FakeRows.rows(steps), steps: steps.count)
        #expect(line.text == " ab  c ")
        let words = line.words
        #expect(words.map(\.text) == ["ab", "c"])
        // Each letter takes a step and a blank: "ab" is steps 2 and 4, "c" step 10.
        #expect(words.map(\.firstStep) == [2, 10])
        #expect(words.map(\.lastStep) == [4, 10])
        #expect(words.allSatisfy { abs($0.confidence - 80) < 1e-3 }, "on Gloss's 0...100 scale")
        #expect(decoder.decode(FakeRows.rows([(0, 0.9), (0, 0.9)]), steps: 2).words.isEmpty)
        #expect(decoder.decode(FakeRows.rows([(0, 0.9)]), steps: 1).confidence == 0)
    }

    @Test func aTieGoesToTheFirstClassAsNumpysArgmax() {
        // Blank and `b` equal: blank wins, so nothing is read.
        var values = [Float](repeating: 0, count: decoder.classCount)
        values[0] = 0.5
        values[2] = 0.5
        #expect(decoder.decode(values[...], steps: 1).text == "")
        #expect(decoder.classCount == 5 && decoder.space == 4)
    }
}
