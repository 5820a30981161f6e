import GlossNeuralNetwork

/// Greedy CTC decoding of the recogniser's output, as RapidOCR decodes it
/// (`rapidocr/ch_ppocr_rec/utils.py`): the most probable class at each time step, repeats
/// collapsed, blanks dropped. Each character keeps its probability and the steps it covers, so
/// a word's box can be found from them (`WordBoxes`).
public struct CTCDecoder: Sendable {
    /// The characters of classes 1...n, in order (`models/ppocr/ppocr-rec.characters`).
    public let characters: [String]

    public init(characters: [String]) { self.characters = characters }

    /// Class 0 is CTC's blank, 1...n the characters, n + 1 a space: RapidOCR's convention.
    public var classCount: Int { characters.count + 2 }
    static let blank = 0
    var space: Int { characters.count + 1 }

    /// Decodes `steps` rows of `classCount` probabilities each, row after row (the recogniser's
    /// output for one line, `[t][class]`).
    public func decode(_ probabilities: ArraySlice<Float>, steps: Int) -> DecodedLine {
        precondition(probabilities.count >= steps * classCount, "\(probabilities.count) values for \(steps) steps")
        var decoded: [DecodedCharacter] = []
        // Each step's class, its runner-up and the gap between their probabilities.
        var best = [Int](repeating: 0, count: steps), second = best
        var gaps = [Float](repeating: 1, count: steps)
        var previous = -1
        let tops = probabilities.withUnsafeBufferPointer { row in
            // The first of equal maxima, as numpy's argmax; the runner-up the next largest.
            (0..<steps).map { Layers.topTwo(row.baseAddress! + $0 * classCount, count: classCount) }
        }
        for step in 0..<steps {
            let top = tops[step].best, probability = tops[step].bestValue
            (best[step], second[step], gaps[step]) = (top, tops[step].second, probability - tops[step].secondValue)
            defer { previous = top }
            if top == previous {
                // The same class again: the character goes on over this step.
                if top != Self.blank, !decoded.isEmpty {
                    decoded[decoded.count - 1].lastStep = step
                    decoded[decoded.count - 1].peak = max(decoded[decoded.count - 1].peak, probability)
                }
                continue
            }
            guard top != Self.blank else { continue }
            let text = top == space ? " " : characters[top - 1]
            decoded.append(DecodedCharacter(text: text, probability: probability, peak: probability, firstStep: step, lastStep: step))
        }
        var line = DecodedLine(characters: decoded, steps: steps)
        line.smallestGap = gaps.min() ?? 1
        line.smallestDecisiveGap = Self.smallestDecisiveGap(best: best, second: second, gaps: gaps)
        return line
    }

    /// The smallest gap between a step's class and its runner-up over the steps where the
    /// runner-up, put in its place, would change the text (1 when none would): a step inside a
    /// character's run or a blank beside its edge changes nothing whatever its gap.
    static func smallestDecisiveGap(best: [Int], second: [Int], gaps: [Float]) -> Float {
        /// What steps `step` and `step + 1` write with `label` at `step`: at most two classes,
        /// in order, -1 for none.
        func written(_ label: Int, at step: Int) -> (Int, Int) {
            let before = step > 0 ? best[step - 1] : -1
            let first = label != blank && label != before ? label : -1
            let next = step + 1 < best.count ? best[step + 1] : blank
            let second = next != blank && next != label ? next : -1
            return first == -1 ? (second, -1) : (first, second)
        }
        var smallest: Float = 1
        for step in best.indices where gaps[step] < smallest && second[step] >= 0
            && written(best[step], at: step) != written(second[step], at: step) {
            smallest = gaps[step]
        }
        return smallest
    }
}

/// One character read: its text, its probability, and the time steps it covers.
public struct DecodedCharacter: Sendable, Equatable {
    public var text: String
    /// The probability of its class at its first step: what RapidOCR averages for the line.
    public var probability: Float
    /// The highest probability of its class over its steps.
    public var peak: Float
    public var firstStep: Int
    public var lastStep: Int

    public init(text: String, probability: Float, peak: Float, firstStep: Int, lastStep: Int) {
        self.text = text
        self.probability = probability
        self.peak = peak
        self.firstStep = firstStep
        self.lastStep = lastStep
    }

    /// A space, or a character of the dictionary that is one (an ideographic space).
    var isSpace: Bool { text.allSatisfy(\.isWhitespace) }
}

/// A line read by the recogniser: its characters, words and confidence.
public struct DecodedLine: Sendable, Equatable {
    public var characters: [DecodedCharacter]
    /// The time steps of the recogniser's output (its input's width / 8).
    public var steps: Int
    /// The smallest gap, over the steps, between the probabilities of a step's class and its
    /// runner-up (1 when not decoded from probabilities).
    public var smallestGap: Float = 1
    /// The same over the steps where the runner-up would change the text
    /// (`CTCDecoder.smallestDecisiveGap`): how near the line's reading is to another.
    public var smallestDecisiveGap: Float = 1

    public init(characters: [DecodedCharacter], steps: Int) {
        self.characters = characters
        self.steps = steps
    }

    /// The text as RapidOCR gives it, spaces included.
    public var text: String { characters.map(\.text).joined() }

    /// The mean probability of the characters, 0...1, as RapidOCR scores a line (spaces
    /// included); 0 for none.
    public var confidence: Double {
        characters.isEmpty ? 0 : characters.map { Double($0.probability) }.reduce(0, +) / Double(characters.count)
    }

    /// The runs of characters between spaces.
    public var words: [DecodedWord] {
        var words: [DecodedWord] = []
        var current: [DecodedCharacter] = []
        for character in characters {
            if character.isSpace {
                if !current.isEmpty { words.append(DecodedWord(characters: current)) }
                current = []
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(DecodedWord(characters: current)) }
        return words
    }
}

/// A run of characters between spaces.
public struct DecodedWord: Sendable, Equatable {
    /// Never empty.
    public var characters: [DecodedCharacter]

    public var text: String { characters.map(\.text).joined() }
    /// The mean probability of its characters on Gloss's 0...100 scale, like the line's.
    public var confidence: Double {
        100 * characters.map { Double($0.probability) }.reduce(0, +) / Double(characters.count)
    }
    public var firstStep: Int { characters[0].firstStep }
    public var lastStep: Int { characters[characters.count - 1].lastStep }
}
