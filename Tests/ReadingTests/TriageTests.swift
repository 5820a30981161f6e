import GlossContract
import GlossGeometry
import GlossReading
import Testing

/// The review triage decided from made-up evidence, and the evidence the plan's loop records.
@Suite struct TriageTests {
    let policy = TriagePolicy()

    /// A page of text read well: many words, sure, every line and its ink covered.
    static let clean = TriageEvidence(textInk: 0.01, textInkArea: 0.0001, unreadLines: 0, disagreement: 0.02,
                                      words: 400, meanConfidence: 92, faces: 0, wordArea: 0.3)

    @Test func aCleanPageIsNotFlagged() {
        let verdict = Triage.verdict(Self.clean, policy: policy)
        #expect(verdict.reasons.isEmpty && !verdict.suspect && !verdict.lowConfidence)
    }

    @Test func aTableWithUnreadColumnsIsSuspectWhateverItsConfidence() {
        // The table: 95 of 404 words missing, 40.5% of its ink uncovered, 91.7% mean confidence.
        var table = Self.clean
        table.textInk = 0.3
        table.textInkArea = 0.02
        table.meanConfidence = 91.7
        #expect(Triage.verdict(table, policy: policy).reasons == [.inkWithoutWords])
        // With the detector: its lines no reading covers are a reason of their own.
        table.unreadLines = 0.25
        let verdict = Triage.verdict(table, policy: policy)
        #expect(verdict.reasons == [.unreadLines, .inkWithoutWords] && verdict.suspect && !verdict.lowConfidence)
    }

    @Test func aStrayLineOfFooterInkDoesNotFlagANearlyEmptyPage() {
        var page = Self.clean
        page.textInk = 0.5
        page.textInkArea = 0.001
        #expect(Triage.verdict(page, policy: policy).reasons.isEmpty)
    }

    @Test func readersThatDisagreeMakeAPageSuspect() {
        var page = Self.clean
        page.disagreement = 0.5
        #expect(Triage.verdict(page, policy: policy).reasons == [.readersDisagree])
        page.disagreement = nil
        #expect(Triage.verdict(page, policy: policy).reasons.isEmpty)
    }

    @Test func aPhotoWithAFewGarbageWordsIsNotOfLowConfidence() {
        let photo = TriageEvidence(words: 4, meanConfidence: 35, faces: 2, wordArea: 0.001)
        #expect(Triage.verdict(photo, policy: policy).reasons.isEmpty)
        // Without faces, a handful of words on a sliver of the picture make it a photo too.
        #expect(Triage.verdict(TriageEvidence(words: 4, meanConfidence: 35, wordArea: 0.005), policy: policy).reasons.isEmpty)
        // A photo of a sign, its words covering much of it, is read as text: unsure words count.
        var sign = photo
        (sign.words, sign.wordArea) = (60, 0.2)
        #expect(Triage.verdict(sign, policy: policy).reasons == [.unsureWords])
        // So do a few unsure words filling a page without faces (a chart's labels).
        #expect(Triage.verdict(TriageEvidence(words: 30, meanConfidence: 38, wordArea: 0.03), policy: policy).reasons == [.unsureWords])
        // The detector's lines in a photo's texture that no reader reads are not missing text.
        #expect(Triage.verdict(TriageEvidence(unreadLines: 1, words: 0, meanConfidence: nil, faces: 2), policy: policy).reasons.isEmpty)
    }

    @Test func aPageOfTextWithUnsureWordsIsOfLowConfidenceNotSuspect() {
        var page = Self.clean
        page.meanConfidence = 55
        let verdict = Triage.verdict(page, policy: policy)
        #expect(verdict.reasons == [.unsureWords] && verdict.lowConfidence && !verdict.suspect)
    }

    @Test func theReviewRecordsTheVerdictAndKeepsTheEvidence() {
        let measured = PageReview(suspect: false, uncoveredInk: 0.4, textInk: 0.3, textInkArea: 0.02, unreadLines: 0.25)
        var evidence = Self.clean
        (evidence.textInk, evidence.textInkArea, evidence.unreadLines) = (0.3, 0.02, 0.25)
        let review = Triage.review(measured, evidence: evidence, policy: policy)
        #expect(review.suspect && review.lowConfidence == false)
        #expect(review.reasons == ["unread-lines", "ink-without-words"])
        #expect(review.uncoveredInk == 0.4 && review.unreadLines == 0.25)
    }

    @Test func everyReasonHasItsOwnStableName() {
        #expect(TriageReason.allCases.map(\.rawValue) == ["unread-lines", "ink-without-words", "readers-disagree", "unsure-words"])
    }

    @Test func theDifferenceOfTwoReadingsIsTheShareOfCharactersChanged() {
        #expect(Triage.difference("", "") == 0)
        #expect(Triage.difference("abcd", "abcd") == 0)
        #expect(Triage.difference("abcd", "abxd") == 0.25)
        #expect(Triage.difference("", "ab") == 1)
        #expect(Triage.difference("ab", "") == 1)
        #expect(Triage.difference("kitten", "sitting") == 3.0 / 7.0)
    }

    @Test func thePlanRecordsUnreadLinesAndDisagreement() throws {
        // Four detected rows: row 0 read surely by Tesseract; row 1 unsurely, and the neural
        // reader reads it quite differently; rows 2 and 3 neither reader has words for.
        var page = FakePage([
            Page.line([Page.word("Sure", row: 0, from: 0.1, to: 0.3, confidence: 96)]),
            Page.line([Page.word("abcd", row: 1, from: 0.1, to: 0.4, confidence: 50)]),
        ])
        var lines = FakeLines(lines: (0..<4).map { LineSignals(box: Page.row($0)) },
                              readings: [1: Page.line([Page.word("wxyd", row: 1, from: 0.1, to: 0.4, confidence: 60)])])
        let reading = try PlanExecution.read(signals: Page.signals, mode: .accurate, policy: FusionPolicy(), page: &page,
                                             lines: &lines, cancellation: CancellationFlag())
        #expect(reading.unreadLines == 0.5)
        #expect(reading.disagreement == 0.75)
        var fast = FakePage([Page.line([Page.word("Sure", row: 0, from: 0.1, to: 0.3, confidence: 96)])])
        let alone = try PlanExecution.read(signals: Page.signals, mode: .fast, policy: FusionPolicy(), page: &fast,
                                           lines: &lines, cancellation: CancellationFlag())
        #expect(alone.unreadLines == nil && alone.disagreement == nil)
    }
}
