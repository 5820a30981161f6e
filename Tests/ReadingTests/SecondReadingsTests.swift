import GlossContract
import GlossGeometry
import GlossReading
import Testing

/// Tesseract's second readings decided from made-up readings: which turn is read next, which
/// reading is kept, and when a scaled page is read as it came too.
@Suite struct SecondReadingsTests {
    let policy = PreparationPolicy()

    /// A reading of `count` words, each of `confidence`, one a row.
    static func reading(_ count: Int, at confidence: Double) -> RecognizedText {
        let lines = (0..<count).map { row in
            Page.line([RecognizedWord(text: "w\(row)", box: NormalizedRect(x: 0.1, y: 0.9 - 0.01 * Double(row), width: 0.2, height: 0.008),
                                      confidence: confidence)])
        }
        guard !lines.isEmpty else { return RecognizedText() }
        let box = NormalizedRect.enclosing(lines.map(\.box))
        return RecognizedText(blocks: [TextBlock(box: box, paragraphs: [TextParagraph(box: box, lines: lines)])])
    }

    static func read(_ rotation: Int, _ count: Int, at confidence: Double) -> TurnedReading {
        TurnedReading(rotation: rotation, text: reading(count, at: confidence))
    }

    @Test func aPageDoubtedIsFirstReadAsGiven() {
        let doubt = DoubtfulOrientation(applied: 90, other: 0)
        #expect(SecondReadings.nextTurn(after: [], doubt: doubt, policy: policy) == NextTurn(rotation: 90, skew: 0))
    }

    @Test func aConfidentReadingOfAPageOnItsHeadIsNotReadAgain() {
        let doubt = DoubtfulOrientation(applied: 0, other: 180)
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 40, at: policy.confidentReading)], doubt: doubt, policy: policy) == nil)
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 40, at: 84)], doubt: doubt, policy: policy)
                == NextTurn(rotation: 180, skew: 0))
    }

    @Test func aPageThatMayLieOnItsSideIsReadStoodUpHoweverConfidentItsFirstReading() {
        let doubt = DoubtfulOrientation(applied: 0, other: 270, otherSkew: 1.5)
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 40, at: 96)], doubt: doubt, policy: policy)
                == NextTurn(rotation: 270, skew: 1.5))
        // A turn the preparer took unsure is undone only when its reading is unsure.
        let taken = DoubtfulOrientation(applied: 90, other: 0)
        #expect(SecondReadings.nextTurn(after: [Self.read(90, 40, at: 96)], doubt: taken, policy: policy) == nil)
        #expect(SecondReadings.nextTurn(after: [Self.read(90, 40, at: 60)], doubt: taken, policy: policy)
                == NextTurn(rotation: 0, skew: 0))
    }

    @Test func aPageTheDetectorsWereSureOfIsTurnedOverOnlyWhenItsReadingLooksGarbled() {
        let sure = DoubtfulOrientation.overturned(from: 90)
        #expect(SecondReadings.nextTurn(after: [Self.read(90, 5, at: 45)], doubt: sure, policy: policy)
                == NextTurn(rotation: 270, skew: 0))
        #expect(SecondReadings.nextTurn(after: [Self.read(90, 4, at: 20)], doubt: sure, policy: policy) == nil,
                "a photograph's few specks")
        #expect(SecondReadings.nextTurn(after: [Self.read(90, 40, at: policy.garbledReading)], doubt: sure, policy: policy) == nil,
                "unsure is not garbled")
        #expect(SecondReadings.nextTurn(after: [TurnedReading(rotation: 90, text: RecognizedText())], doubt: sure,
                                        policy: policy) == nil)
    }

    @Test func aPageOnItsSideReadUnsureBothWaysIsReadOnItsOtherSide() {
        let doubt = DoubtfulOrientation(applied: 0, other: 270, otherSkew: 0.7)
        let unsure = [Self.read(0, 30, at: 73), Self.read(270, 30, at: 46)]
        #expect(SecondReadings.nextTurn(after: unsure, doubt: doubt, policy: policy) == NextTurn(rotation: 90, skew: 0.7))
        // The preparer turned it: the other side of the turn taken, the page levelled already.
        let taken = DoubtfulOrientation(applied: 270, other: 0)
        #expect(SecondReadings.nextTurn(after: [Self.read(270, 30, at: 46), Self.read(0, 30, at: 73)], doubt: taken,
                                        policy: policy) == NextTurn(rotation: 90, skew: 0))
        // Not when a side read surely, nor for a photograph's specks, nor a fourth time.
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 30, at: 73), Self.read(270, 30, at: 90)], doubt: doubt,
                                        policy: policy) == nil)
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 3, at: 30), Self.read(270, 2, at: 40)], doubt: doubt,
                                        policy: policy) == nil)
        #expect(SecondReadings.nextTurn(after: unsure + [Self.read(90, 30, at: 50)], doubt: doubt, policy: policy) == nil)
        // A page on its head has no other side.
        let head = DoubtfulOrientation(applied: 0, other: 180)
        #expect(SecondReadings.nextTurn(after: [Self.read(0, 30, at: 50), Self.read(180, 30, at: 55)], doubt: head,
                                        policy: policy) == nil)
    }

    @Test func theMostConfidentReadingIsKeptAndTheBestOfTheOthersSetAside() {
        let readings = [Self.read(0, 30, at: 73), Self.read(270, 30, at: 46), Self.read(90, 30, at: 75)]
        let (kept, setAside) = SecondReadings.chosen(readings)
        #expect(kept.rotation == 90 && setAside?.rotation == 0)
        let (first, none) = SecondReadings.chosen([Self.read(0, 30, at: 73)])
        #expect(first.rotation == 0 && none == nil)
        // Equals keep the first; no words lose, even to a few doubtful ones.
        let tie = SecondReadings.chosen([Self.read(0, 30, at: 80), Self.read(180, 30, at: 80)])
        #expect(tie.kept.rotation == 0 && tie.setAside?.rotation == 180)
        let empty = SecondReadings.chosen([TurnedReading(rotation: 0, text: RecognizedText()), Self.read(180, 1, at: 20)])
        #expect(empty.kept.rotation == 180)
        // A map read on its side as one word at 90 loses to dozens of words at 85 stood up.
        let map = SecondReadings.chosen([Self.read(0, 1, at: 90), Self.read(90, 40, at: 85)])
        #expect(map.kept.rotation == 90)
    }

    /// A reading of `count` words of `confidence`, each `width` x `height` of a square page.
    static func words(_ count: Int, at confidence: Double, width: Double, height: Double, text: String = "word") -> RecognizedText {
        let lines = (0..<count).map { row in
            Page.line([RecognizedWord(text: text, box: NormalizedRect(x: 0.1, y: 0.9 - 0.02 * Double(row), width: width, height: height),
                                      confidence: confidence)])
        }
        let box = NormalizedRect.enclosing(lines.map(\.box))
        return RecognizedText(blocks: [TextBlock(box: box, paragraphs: [TextParagraph(box: box, lines: lines)])])
    }

    @Test func aSureReadingOfLevelWordsSettlesTheWayUpWithoutTheDetector() {
        let size = PixelSize(width: 1000, height: 1000)
        let level = Self.words(20, at: 92, width: 0.05, height: 0.01)
        #expect(SecondReadings.settlesWayUp(level, size: size, policy: policy))
        // Unsure: a page on its head reads as garbage Tesseract is unsure of.
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: policy.confidentReading - 1, width: 0.05, height: 0.01),
                                             size: size, policy: policy))
        // Sure, but its words stand: a page on its side whose standing lines Tesseract turned.
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: 95, width: 0.01, height: 0.05), size: size, policy: policy))
        // Too few words to tell, and short words (digits, specks) do not count.
        #expect(!SecondReadings.settlesWayUp(Self.words(policy.wordsToTell - 1, at: 95, width: 0.05, height: 0.01),
                                             size: size, policy: policy))
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: 95, width: 0.05, height: 0.01, text: "12"), size: size, policy: policy))
        // The boxes are measured in the page's pixels: wide on a tall page, a normalised square is level.
        #expect(SecondReadings.settlesWayUp(Self.words(20, at: 92, width: 0.02, height: 0.02), size: PixelSize(width: 3000, height: 1000),
                                            policy: policy))
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: 92, width: 0.02, height: 0.02), size: PixelSize(width: 1000, height: 3000),
                                             policy: policy))
    }

    @Test func fastsFirstReadingSettlesTheWayUpFromItsOwnThreshold() {
        let size = PixelSize(width: 1000, height: 1000)
        // An upright receipt read at 75: under the 85 a second reading is spared from, over the
        // 70 that spares the orientation detector; a page read on its head at 46 settles nothing.
        let receipt = Self.words(20, at: 75, width: 0.05, height: 0.01)
        #expect(policy.settlingReading < policy.confidentReading)
        #expect(SecondReadings.settlesWayUp(receipt, size: size, policy: policy, from: policy.settlingReading))
        #expect(!SecondReadings.settlesWayUp(receipt, size: size, policy: policy))
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: 46, width: 0.05, height: 0.01), size: size, policy: policy,
                                             from: policy.settlingReading))
        #expect(!SecondReadings.settlesWayUp(Self.words(20, at: 95, width: 0.01, height: 0.05), size: size, policy: policy,
                                             from: policy.settlingReading), "standing words settle nothing")
    }

    @Test func aFewStandingWordsLeaveAPageLevel() {
        let size = PixelSize(width: 1000, height: 1000)
        let level = Self.words(18, at: 92, width: 0.05, height: 0.01), standing = Self.words(2, at: 92, width: 0.01, height: 0.05)
        let mixed = RecognizedText(blocks: level.blocks + standing.blocks)
        #expect(SecondReadings.settlesWayUp(mixed, size: size, policy: policy))
        let more = RecognizedText(blocks: level.blocks + Self.words(3, at: 92, width: 0.01, height: 0.05).blocks)
        #expect(!SecondReadings.settlesWayUp(more, size: size, policy: policy))
    }

    @Test func onlyADoubtedWayUpIsComparedAtItsOwnSize() {
        #expect(SecondReadings.comparesAtOwnSize(DoubtfulOrientation(applied: 0, other: 90), policy: policy))
        #expect(SecondReadings.comparesAtOwnSize(DoubtfulOrientation(applied: 90, other: 0), policy: policy))
        #expect(!SecondReadings.comparesAtOwnSize(.overturned(from: 0), policy: policy))
        var comparing = policy
        comparing.comparesSurePages = true
        #expect(SecondReadings.comparesAtOwnSize(.overturned(from: 0), policy: comparing))
    }

    @Test func aScaledPageIsReadAsItCameWhenEnlargedOrUnsureAtTheResolutionTold() {
        let sure = Self.reading(40, at: 90), unsure = Self.reading(40, at: 80)
        #expect(SecondReadings.readsAsItCameToo(enlarged: true, resolutionDoubted: false, first: sure, policy: policy))
        #expect(SecondReadings.readsAsItCameToo(enlarged: false, resolutionDoubted: true, first: unsure, policy: policy))
        #expect(!SecondReadings.readsAsItCameToo(enlarged: false, resolutionDoubted: true, first: sure, policy: policy))
        #expect(!SecondReadings.readsAsItCameToo(enlarged: false, resolutionDoubted: false, first: unsure, policy: policy))
    }
}
