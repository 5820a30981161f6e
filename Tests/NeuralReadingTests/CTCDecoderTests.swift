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

    /// Rows of given probabilities: each step's classes (blank, a, b, c, space) in order.
    static func rows(_ steps: [[Float]]) -> ArraySlice<Float> { steps.flatMap { $0 }[...] }

    @Test func aLinesGapsAreItsClosestRunnersUpAndTheDecisiveOnesChangeTheText() {
        // a (b 0.05 behind: "bab"), a (a blank 0.05 behind, inside a's run: "ab" still), a blank
        // (a 0.1 behind, after a's run: "ab" still), b (c 0.3 behind: "ac").
        let steps: [[Float]] = [[0.0, 0.5, 0.45, 0, 0.05], [0.45, 0.5, 0, 0, 0.05], [0.5, 0.4, 0, 0.1, 0],
                                [0.05, 0, 0.6, 0.3, 0.05]]
        let line = decoder.decode(Self.rows(steps), steps: steps.count)
        #expect(line.text == "ab")
        #expect(abs(line.smallestGap - 0.05) < 1e-6)
        #expect(abs(line.smallestDecisiveGap - 0.05) < 1e-6)
        // With the first step sure of its a, the decisive gap is b's over c: the blank inside
        // and after a's run, though closer, change nothing.
        var settled = steps
        settled[0] = [0, 0.9, 0.05, 0, 0.05]
        let read = decoder.decode(Self.rows(settled), steps: settled.count)
        #expect(read.text == "ab")
        #expect(abs(read.smallestGap - 0.05) < 1e-6)
        #expect(abs(read.smallestDecisiveGap - 0.3) < 1e-6)
    }

    @Test func aRunnerUpIsDecisiveOnlyWhereItChangesTheText() {
        func decisive(_ steps: [[Float]]) -> Float { decoder.decode(Self.rows(steps), steps: steps.count).smallestDecisiveGap }
        // An a for a blank adds a letter; a space for an a changes it.
        #expect(abs(decisive([[0.6, 0.4, 0, 0, 0], [0.9, 0.1, 0, 0, 0]]) - 0.2) < 1e-6)
        #expect(abs(decisive([[0, 0.6, 0, 0, 0.4], [0.9, 0.1, 0, 0, 0]]) - 0.2) < 1e-6)
        // A blank inside a run splits it ("aa"); at the run's ends it only shortens it ("a").
        #expect(abs(decisive([[0.1, 0.9, 0, 0, 0], [0.3, 0.7, 0, 0, 0], [0.1, 0.9, 0, 0, 0]]) - 0.4) < 1e-6)
        #expect(decisive([[0.2, 0.8, 0, 0, 0], [0.1, 0.9, 0, 0, 0]]) == 1)
    }
}
