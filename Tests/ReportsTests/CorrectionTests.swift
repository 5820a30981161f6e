import Foundation
import GlossContract
import GlossGeometry
import Testing

/// Corrections applied to the sample page as values: each kind changes exactly its words, finds
/// them by box, and refuses what does not fit. No file is touched.
struct CorrectionTests {
    static let at = "2026-12-02T13:00:00Z"
    let page = SamplePage.report()

    /// The words not named in `changed` (indices of `before`), which must come through unchanged.
    func kept(_ before: PageReport, except changed: Set<Int>) -> [PageReport.Word] {
        before.words.enumerated().filter { !changed.contains($0.offset) }.map(\.element)
    }

    @Test func aRetypeChangesOneWordAndMarksIt() throws {
        let corrected = try page.applying(try Correction.retype(0, to: "Glosses", on: page, page: "p", by: "Ana", at: Self.at))
        #expect(corrected.words.count == page.words.count)
        let word = corrected.words[0]
        #expect(word.text == "Glosses" && word.box == page.words[0].box && word.line == page.words[0].line)
        #expect(word.confidence == 100 && word.correction == PageReport.Attribution(by: "Ana", at: Self.at))
        #expect(Array(corrected.words.dropFirst()) == Array(page.words.dropFirst()))
        #expect(corrected.lines[0].text == "Glosses & Co.")
        #expect(corrected.text.hasPrefix("Glosses & Co.\n"))
        #expect(corrected.text.replacingOccurrences(of: "Glosses", with: "Gloss") == page.text)
    }

    @Test func aDeleteRemovesOneWord() throws {
        let corrected = try page.applying(try Correction.delete(1, on: page, page: "p", by: "Ana", at: Self.at))
        #expect(corrected.words == kept(page, except: [1]))
        #expect(corrected.lines[0].text == "Gloss Co.")
    }

    @Test func aJoinMakesTwoWordsOneHoldingBoth() throws {
        let corrected = try page.applying(try Correction.join(1, on: page, page: "p", by: "Ana", at: Self.at))
        #expect(corrected.words.count == page.words.count - 1)
        let joined = corrected.words[1]
        #expect(joined.text == "&Co.")
        #expect(joined.box == PixelRect(x: 120, y: 30, width: 64, height: 20))
        #expect(Array(corrected.words[2...]) == Array(page.words[3...]))
        #expect(corrected.words[0] == page.words[0])
    }

    @Test func aSplitCutsOneWordInShares() throws {
        // "Total:" (40, 300, 90 wide) into "Tot" and "al:": 45 pixels each.
        let corrected = try page.applying(try Correction.split(6, into: ["Tot", "al:"], on: page, page: "p", by: "Ana", at: Self.at))
        #expect(corrected.words.count == page.words.count + 1)
        #expect(corrected.words[6].text == "Tot" && corrected.words[7].text == "al:")
        #expect(corrected.words[6].box == PixelRect(x: 40, y: 300, width: 45, height: 20))
        #expect(corrected.words[7].box == PixelRect(x: 85, y: 300, width: 45, height: 20))
        #expect(Array(corrected.words[..<6]) == Array(page.words[..<6]) && corrected.words[8] == page.words[7])
        #expect(corrected.lines[3].text == "Tot al: 42")
    }

    @Test func anAddedWordJoinsTheLineItSitsOnInOrder() throws {
        // Between "Total:" (ends at 130) and "42" (starts at 140), on that line.
        let onLine = try page.applying(Correction.add("=", box: PixelRect(x: 131, y: 301, width: 8, height: 18), page: "p", by: "Ana", at: Self.at))
        #expect(onLine.words.map(\.text).suffix(3) == ["Total:", "=", "42"])
        #expect(onLine.words[7].line == page.words[6].line && onLine.words[7].correction != nil)
        #expect(onLine.lines.count == page.lines.count)

        // Where no line is: a line, paragraph and block of its own.
        let alone = try page.applying(Correction.add("Note", box: PixelRect(x: 40, y: 200, width: 60, height: 20), page: "p", by: "Ana", at: Self.at))
        #expect(alone.lines.count == page.lines.count + 1 && alone.paragraphs.count == page.paragraphs.count + 1)
        #expect(alone.words.last?.text == "Note" && alone.words.last?.line == page.lines.count)
        #expect(alone.text.hasSuffix("\n\nNote"))
    }

    /// Replayed on a page read again that now reads the added word, an add changes nothing;
    /// where another word now stands, it no longer applies (a replay reports it), rather than
    /// putting two words in one place.
    @Test func anAddWhereTheWordAlreadyIsAddsNothingAndOverAnotherWordIsRefused() throws {
        let note = Correction.add("Note", box: PixelRect(x: 40, y: 200, width: 60, height: 20), page: "p", by: "Ana", at: Self.at)
        let added = try page.applying(note)
        #expect(try added.applying(note) == added)
        var reread = page
        reread.words.append(PageReport.Word(text: "Note", confidence: 91, box: PixelRect(x: 41, y: 201, width: 58, height: 19), line: 0))
        #expect(try reread.applying(note).words.count == reread.words.count)
        reread.words[reread.words.count - 1].text = "Nole"
        #expect(throws: CorrectionError.self) { try reread.applying(note) }
    }

    @Test func markingReviewedChangesNoWord() throws {
        let reviewed = try page.applying(Correction.review(page: "p", by: "Ana", at: Self.at))
        #expect(reviewed.words == page.words && reviewed.reviewed?.by == "Ana")
    }

    @Test func aWordIsFoundByItsBoxOnAPageReadAgain() throws {
        let retype = try Correction.retype(4, to: "Grüsse", on: page, page: "p", by: "Ana", at: Self.at)
        // Read again: the word is a few pixels off, the words before it are gone.
        var again = page
        again.words.removeFirst(2)
        again.words[2].box = PixelRect(x: 42, y: 91, width: 79, height: 20)
        let corrected = try again.applying(retype)
        #expect(corrected.words[2].text == "Grüsse" && corrected.words[2].box == retype.new[0].box)

        // Moved away: no longer that word.
        again.words[2].box = PixelRect(x: 300, y: 91, width: 79, height: 20)
        #expect(throws: CorrectionError.wordNotFound(page: "p", word: retype.old[0])) { try again.applying(retype) }
    }

    @Test func malformedCorrectionsAreRefused() throws {
        let empty = Correction(page: "p", kind: .retype, word: 0, old: [Correction.Word(text: "Gloss", box: page.words[0].box)],
                               new: [Correction.Word(text: " ", box: page.words[0].box)], by: "Ana", at: Self.at)
        #expect(throws: CorrectionError.self) { try page.applying(empty) }
        let shapeless = Correction(page: "p", kind: .join, word: 0, old: [Correction.Word(text: "Gloss", box: page.words[0].box)],
                                   new: [], by: "Ana", at: Self.at)
        #expect(throws: CorrectionError.self) { try page.applying(shapeless) }
        var nameless = try Correction.delete(0, on: page, page: "p", by: "Ana", at: Self.at)
        nameless.by = ""
        #expect(throws: CorrectionError.self) { try page.applying(nameless) }
        #expect(throws: CorrectionError.self) { try Correction.delete(99, on: page, page: "p", by: "Ana") }
        // Boxes off the page, from a client that sends what it likes: refused, not an overflow.
        let huge = PixelRect(x: 1, y: 1, width: 1 << 32, height: 1 << 32)
        #expect(throws: CorrectionError.self) { try page.applying(Correction.add("far", box: huge, page: "p", by: "Ana", at: Self.at)) }
        let wide = Correction(page: "p", kind: .retype, word: 0,
                              old: [Correction.Word(text: "Gloss", box: PixelRect(x: 1, y: 0, width: .max, height: 1))],
                              new: [Correction.Word(text: "Glossa", box: page.words[0].box)], by: "Ana", at: Self.at)
        #expect(throws: CorrectionError.self) { try page.applying(wide) }
        // A word number past any page: the words are found by their boxes.
        var far = try Correction.retype(0, to: "Glosses", on: page, page: "p", by: "Ana", at: Self.at)
        far.word = .max
        #expect(try page.applying(far).words[0].text == "Glosses")
    }

    /// Words and pages without corrections are written exactly as before; corrected ones say so.
    @Test func theJSONContractStaysBackwardCompatible() throws {
        let plain = String(decoding: try JSONOutput.encode(page), as: UTF8.self)
        #expect(!plain.contains("corrected") && !plain.contains("reviewed"))
        var corrected = try page.applying(try Correction.retype(0, to: "Glosses", on: page, page: "p", by: "Ana", at: Self.at))
        corrected = try corrected.applying(Correction.review(page: "p", by: "Ana", at: Self.at))
        let json = try JSONOutput.encode(corrected)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let first = try #require((object["words"] as? [[String: Any]])?.first)
        #expect(first["corrected"] as? Bool == true && first["correctedBy"] as? String == "Ana" && first["correctedAt"] as? String == Self.at)
        #expect(first["confidence"] as? Double == 100)
        #expect((object["reviewed"] as? [String: String]) == ["by": "Ana", "at": Self.at])
        #expect(try JSONOutput.decode(PageReport.self, from: json) == corrected)
        // A word of an older page, with none of the new keys.
        let old = try JSONOutput.decode(PageReport.Word.self, from: Array(#"{"text":"a","confidence":90,"box":{"x":1,"y":2,"width":3,"height":4}}"#.utf8))
        #expect(old.correction == nil && old.line == 0)
    }
}
