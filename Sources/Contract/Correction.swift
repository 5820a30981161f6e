import Foundation
import GlossGeometry

/// One reviewer's change to one page: a value, appended to the batch's journal of corrections
/// before it is applied, so that none is ever lost and a page read again can have it again.
///
/// Every kind is the same shape: the words it takes away (`old`, as the page held them) and
/// the words it puts in their place (`new`). A retype takes one word and gives one with the
/// same box; a delete gives none; a join takes two and gives one; a split takes one and gives
/// two or more; an added word takes none; marking a page reviewed neither takes nor gives.
/// The words taken are found by their box (and `word`, their index, as a hint), not by their
/// index alone, so a correction still finds its words on a page read again.
public struct Correction: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case retype, delete, join, split, add, review
        /// Not a change: the page's earlier corrections are no longer applied when it is read
        /// again (`--discard-corrections`). The journal keeps them, so nothing is lost.
        case discard

        /// How many words the kind takes and gives, which `validate` checks.
        var shape: (old: ClosedRange<Int>, new: ClosedRange<Int>) {
            switch self {
            case .retype: (1...1, 1...1)
            case .delete: (1...1, 0...0)
            case .join: (2...2, 1...1)
            case .split: (1...1, 2...Int.max)
            case .add: (0...0, 1...1)
            case .review, .discard: (0...0, 0...0)
            }
        }
    }

    /// A word as a correction names it: its text and its box in page pixels.
    public struct Word: Codable, Sendable, Equatable {
        public var text: String
        public var box: PixelRect

        public init(text: String, box: PixelRect) {
            self.text = text
            self.box = box
        }
    }

    /// The page's id in its batch (`pages/<id>.json`).
    public var page: String
    public var kind: Kind
    /// The index in the page's `words` of the first word taken, as the page stood; nil for a
    /// kind that takes none.
    public var word: Int?
    public var old: [Word]
    public var new: [Word]
    /// The reviewer's name, as they set it once (no accounts).
    public var by: String
    /// When it was made: ISO 8601 in UTC (`2026-12-02T13:04:05Z`).
    public var at: String

    public init(page: String, kind: Kind, word: Int? = nil, old: [Word] = [], new: [Word] = [], by: String, at: String) {
        self.page = page
        self.kind = kind
        self.word = word
        self.old = old
        self.new = new
        self.by = by
        self.at = at
    }

    /// Now, as `at` spells a time.
    public static func timestamp(_ date: Date = Date()) -> String {
        Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).format(date)
    }

    // MARK: Made from a page

    /// The word at `index` retyped as `text`, its box kept.
    public static func retype(_ index: Int, to text: String, on report: PageReport, page: String, by: String, at: String = timestamp())
        throws(CorrectionError) -> Correction {
        let word = try report.correctionWord(index, page: page)
        return Correction(page: page, kind: .retype, word: index, old: [word], new: [Word(text: text, box: word.box)], by: by, at: at)
    }

    public static func delete(_ index: Int, on report: PageReport, page: String, by: String, at: String = timestamp())
        throws(CorrectionError) -> Correction {
        Correction(page: page, kind: .delete, word: index, old: [try report.correctionWord(index, page: page)], by: by, at: at)
    }

    /// The words at `index` and `index + 1` made one, whose text is `text` (both run together
    /// when nil) and whose box holds both.
    public static func join(_ index: Int, as text: String? = nil, on report: PageReport, page: String, by: String,
                            at: String = timestamp()) throws(CorrectionError) -> Correction {
        let first = try report.correctionWord(index, page: page), second = try report.correctionWord(index + 1, page: page)
        let box = PixelRect.enclosing([first.box, second.box])
        return Correction(page: page, kind: .join, word: index, old: [first, second],
                          new: [Word(text: text ?? first.text + second.text, box: box)], by: by, at: at)
    }

    /// The word at `index` split into `parts`, each given its box, or, with none given, a share
    /// of the word's width in proportion to its letters.
    public static func split(_ index: Int, into parts: [String], boxes: [PixelRect]? = nil, on report: PageReport, page: String,
                             by: String, at: String = timestamp()) throws(CorrectionError) -> Correction {
        let word = try report.correctionWord(index, page: page)
        let boxes = boxes ?? PixelRect.shares(of: word.box, weights: parts.map { max(1, $0.count) })
        guard boxes.count == parts.count else { throw .malformed(page: page, reason: "split into \(parts.count) parts with \(boxes.count) boxes") }
        return Correction(page: page, kind: .split, word: index, old: [word], new: zip(parts, boxes).map(Word.init), by: by, at: at)
    }

    /// A word the reader missed, typed in a box drawn where it is.
    public static func add(_ text: String, box: PixelRect, page: String, by: String, at: String = timestamp()) -> Correction {
        Correction(page: page, kind: .add, new: [Word(text: text, box: box)], by: by, at: at)
    }

    public static func review(page: String, by: String, at: String = timestamp()) -> Correction {
        Correction(page: page, kind: .review, by: by, at: at)
    }

    /// Checks the correction's shape: the words it takes and gives for its kind, a reviewer,
    /// a time, and no empty text or box in what it gives.
    public func validate() throws(CorrectionError) {
        let shape = kind.shape
        guard shape.old.contains(old.count), shape.new.contains(new.count) else {
            throw .malformed(page: page, reason: "a \(kind.rawValue) takes \(shape.old) words and gives \(shape.new), not \(old.count) and \(new.count)")
        }
        guard !by.trimmingCharacters(in: .whitespaces).isEmpty else { throw .malformed(page: page, reason: "no reviewer's name") }
        guard (try? Date.ISO8601FormatStyle().parse(at)) != nil else { throw .malformed(page: page, reason: "time '\(at)' is not ISO 8601") }
        for word in new {
            guard !word.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .malformed(page: page, reason: "a word with no text (delete it instead)")
            }
            guard !word.box.isEmpty, word.box.x >= 0, word.box.y >= 0 else {
                throw .malformed(page: page, reason: "the box \(word.box) is empty or off the page")
            }
        }
    }
}

/// Why a correction could not be made. The server maps `staleVersion` to 409/412.
public enum CorrectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The correction is not of its kind's shape, or names nothing usable.
    case malformed(page: String, reason: String)
    /// No page of that id in the batch.
    case unknownPage(String)
    /// The page changed since the version the correction was made against.
    case staleVersion(page: String, expected: String, current: String)
    /// A word the correction takes is not on the page (by its box, with the threshold of
    /// `CorrectionPolicy`).
    case wordNotFound(page: String, word: Correction.Word)
    /// The page could not be read, written, or its derived files made again.
    case file(path: String, cause: String)

    public var description: String {
        switch self {
        case .malformed(let page, let reason): "correction of page \(page): \(reason)"
        case .unknownPage(let page): "no page '\(page)' in the batch"
        case .staleVersion(let page, let expected, let current):
            "page \(page) changed since it was loaded (version \(expected), now \(current)): load it again and redo the correction"
        case .wordNotFound(let page, let word): "page \(page) has no word '\(word.text)' at \(word.box)"
        case .file(let path, let cause): "\(path): \(cause)"
        }
    }
}

/// The thresholds of applying corrections, with the measurement behind each.
public struct CorrectionPolicy: Sendable, Equatable {
    /// How much a word's box must overlap the box a correction names (intersection over union)
    /// to be that word, when the boxes are not the same. Tesseract's word boxes for the same
    /// print, read twice with other settings, overlap by 0.8 or more (a letter more or less on
    /// a 5-letter word is 0.8); two neighbouring words never overlap by more than a few
    /// percent. 0.5 takes the first and never the second.
    public var matchingOverlap = 0.5
    /// How much of an added word's box a line must hold (of the word's area) for the word to
    /// join that line rather than start a line of its own.
    public var lineShare = 0.5

    public init() {}
}

extension PageReport {
    /// When the page was marked reviewed, and by whom; nil while it is not.
    public struct Attribution: Codable, Sendable, Equatable {
        public var by: String
        public var at: String

        public init(by: String, at: String) {
            self.by = by
            self.at = at
        }

        /// `at` as a time; nil when it does not read as ISO 8601.
        public var date: Date? { try? Date.ISO8601FormatStyle().parse(at) }
    }

    fileprivate func correctionWord(_ index: Int, page: String) throws(CorrectionError) -> Correction.Word {
        guard words.indices.contains(index) else { throw .malformed(page: page, reason: "no word \(index) (the page has \(words.count))") }
        return Correction.Word(text: words[index].text, box: words[index].box)
    }

    /// The page with `correction` applied, or the reason it cannot be. The words it gives are
    /// `corrected`, with confidence 100, who and when; the lines' and the page's text follow.
    public func applying(_ correction: Correction, policy: CorrectionPolicy = CorrectionPolicy()) throws(CorrectionError) -> PageReport {
        try correction.validate()
        // Every box on the page: a box of the client's far off it would overflow the overlap's
        // arithmetic below (and a server trusts no client).
        for word in correction.old + correction.new where !lies(word.box) {
            throw .malformed(page: correction.page, reason: "the box \(word.box) is not on the page (\(width) x \(height))")
        }
        var page = self
        let attribution = Attribution(by: correction.by, at: correction.at)
        switch correction.kind {
        case .review:
            page.reviewed = attribution
            return page
        case .discard:
            return page
        case .add:
            // A word added where the page already holds one: the same word (a page read again
            // that now reads it, or the add sent twice) changes nothing; another word there is
            // for a retype, and an add replayed over it would put two words in one place.
            let held = correction.new.map { page.wordIndex(matching: $0, hint: nil, excluding: [], policy: policy).map { page.words[$0].text } }
            if held == correction.new.map({ Optional($0.text) }) { return page }
            if let index = held.firstIndex(where: { $0 != nil }), let text = held[index] {
                throw .malformed(page: correction.page, reason: "'\(text)' is already at \(correction.new[index].box) (retype it instead)")
            }
        case .retype, .delete, .join, .split:
            break
        }
        // The words taken, found by box: the hinted index first, then the best overlap.
        var taken: [Int] = []
        for (offset, old) in correction.old.enumerated() {
            let hint = correction.word.flatMap { words.indices.contains($0) ? $0 + offset : nil }
            guard let index = page.wordIndex(matching: old, hint: hint, excluding: taken, policy: policy) else {
                throw .wordNotFound(page: correction.page, word: old)
            }
            taken.append(index)
        }
        let line: Int
        var insertAt: Int
        if let first = taken.min() {
            line = page.words[first].line
            insertAt = first
        } else {
            (line, insertAt) = page.place(correction.new[0].box, policy: policy)
        }
        for index in taken.sorted(by: >) {
            page.words.remove(at: index)
            if index < insertAt { insertAt -= 1 }
        }
        let given = correction.new.map {
            Word(text: $0.text, confidence: 100, box: $0.box, line: line, correction: attribution)
        }
        page.words.insert(contentsOf: given, at: min(insertAt, page.words.count))
        page.retext()
        return page
    }

    /// Whether `box` lies on the page, its sides no longer than the page's.
    private func lies(_ box: PixelRect) -> Bool {
        box.x >= 0 && box.y >= 0 && box.width >= 0 && box.height >= 0 && box.x <= width - box.width && box.y <= height - box.height
    }

    /// The word a correction names: the one at `hint` when its box is the same, or else the one
    /// whose box overlaps it most, past `policy.matchingOverlap`.
    func wordIndex(matching word: Correction.Word, hint: Int?, excluding: [Int], policy: CorrectionPolicy) -> Int? {
        if let hint, words.indices.contains(hint), !excluding.contains(hint), words[hint].box == word.box { return hint }
        var best: (index: Int, overlap: Double)?
        for (index, candidate) in words.enumerated() where !excluding.contains(index) {
            let overlap = candidate.box.intersectionOverUnion(word.box)
            let sameText = candidate.text == word.text
            // Of equal overlaps, the word that reads the same wins.
            let score = overlap + (sameText ? 1e-9 : 0)
            if overlap >= policy.matchingOverlap, score > (best?.overlap ?? 0) { best = (index, score) }
        }
        return best?.index
    }

    /// Where a word added at `box` goes: the line holding most of it, after the words of that
    /// line left of it; or a new line (in a new paragraph and block) when no line holds enough.
    mutating func place(_ box: PixelRect, policy: CorrectionPolicy) -> (line: Int, index: Int) {
        let area = Double(max(1, box.width * box.height))
        let shares = lines.enumerated().map { ($0.offset, Double($0.element.box.intersection(box)?.area ?? 0) / area) }
        if let (line, share) = shares.max(by: { $0.1 < $1.1 }), share >= policy.lineShare {
            let ofLine = words.indices.filter { words[$0].line == line }
            if let after = ofLine.last(where: { words[$0].box.x <= box.x }) { return (line, after + 1) }
            if let before = ofLine.first { return (line, before) }
            return (line, words.firstIndex { $0.line > line } ?? words.count)
        }
        blocks.append(Block(box: box))
        paragraphs.append(Paragraph(box: box, block: blocks.count - 1))
        lines.append(Line(text: "", box: box, baseline: nil, paragraph: paragraphs.count - 1))
        return (lines.count - 1, words.count)
    }

    /// The lines' text from their words, each line's box grown to hold them, and the page's
    /// text from its lines, as `RecognizedText.text` spells it.
    mutating func retext() {
        var byLine = [[Word]](repeating: [], count: lines.count)
        for word in words where byLine.indices.contains(word.line) { byLine[word.line].append(word) }
        for index in lines.indices {
            lines[index].text = byLine[index].map(\.text).joined(separator: " ")
            if !byLine[index].isEmpty { lines[index].box = PixelRect.enclosing([lines[index].box] + byLine[index].map(\.box)) }
        }
        var byParagraph: [Int: [String]] = [:], order: [Int] = []
        for line in lines where !line.text.isEmpty {
            if byParagraph[line.paragraph] == nil { order.append(line.paragraph) }
            byParagraph[line.paragraph, default: []].append(line.text)
        }
        text = order.map { byParagraph[$0]!.joined(separator: "\n") }.joined(separator: "\n\n")
    }
}

extension PixelRect {
    var area: Int { max(0, width) * max(0, height) }

    /// The overlap of two rectangles; nil when they do not overlap.
    func intersection(_ other: PixelRect) -> PixelRect? {
        let left = Swift.max(x, other.x), top = Swift.max(y, other.y)
        let right = Swift.min(maxX, other.maxX), bottom = Swift.min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Intersection over union, 0...1.
    public func intersectionOverUnion(_ other: PixelRect) -> Double {
        let shared = Double(intersection(other)?.area ?? 0)
        let union = Double(area + other.area) - shared
        return union > 0 ? shared / union : 0
    }

    /// The smallest rectangle holding all of `rects` (at least one).
    static func enclosing(_ rects: [PixelRect]) -> PixelRect {
        let left = rects.map(\.x).min()!, top = rects.map(\.y).min()!
        let right = rects.map(\.maxX).max()!, bottom = rects.map(\.maxY).max()!
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The rectangle cut left to right into pieces as wide as `weights` share its width.
    static func shares(of box: PixelRect, weights: [Int]) -> [PixelRect] {
        let total = Double(weights.reduce(0, +))
        var boxes: [PixelRect] = [], used = 0.0
        for weight in weights {
            let left = box.x + Int((Double(box.width) * used / total).rounded())
            used += Double(weight)
            let right = box.x + Int((Double(box.width) * used / total).rounded())
            boxes.append(PixelRect(x: left, y: box.y, width: Swift.max(1, right - left), height: box.height))
        }
        return boxes
    }
}
