import GlossGeometry
@testable import GlossNeuralReading
import Testing

/// The shrink-only letter rule: the smaller of RapidOCR's input and the letter rule's.
@Suite struct DetectionPolicyTests {
    let a4 = PixelSize(width: 2480, height: 3508)

    @Test func largeLettersShrinkTheInputSmallOnesKeepRapidOCRs() throws {
        var policy = DetectionPolicy()
        policy.shrinkingXHeight = 12
        let rapid = try #require(policy.plan(for: a4))
        // Letters 40 px tall: scaled by 0.3 to 12 px, smaller than RapidOCR's 2000 px bound.
        let large = try #require(policy.plan(for: a4, xHeight: 40))
        #expect(large.input.width * large.input.height < rapid.input.width * rapid.input.height)
        #expect(abs(Double(large.input.width) - 2480 * 0.3) <= 32)
        // On a page of 1000 x 1400, letters 6 px tall would need it doubled: RapidOCR's input
        // (the page's own size, rounded to 32) is kept.
        let page = PixelSize(width: 1000, height: 1400)
        #expect(policy.plan(for: page, xHeight: 6) == policy.plan(for: page))
        // Without it the rule scales either way (to `targetXHeight` 16).
        policy.shrinkingXHeight = nil
        let scaled = try #require(policy.plan(for: a4, xHeight: 40))
        #expect(abs(Double(scaled.input.width) - 2480 * 0.4) <= 32)
    }

    /// RapidOCR's rule enlarges the shorter side to 736 whatever the longer one; the input's
    /// area is bounded (largest side squared), so a strip cannot ask for gigabytes of maps.
    @Test func aNarrowPageCannotMakeAHugeInput() throws {
        let policy = DetectionPolicy.rapidOCR
        let largest = policy.largestInputSide * policy.largestInputSide
        for page in [PixelSize(width: 1, height: 2000), PixelSize(width: 2000, height: 5), PixelSize(width: 10, height: 300),
                     PixelSize(width: 945, height: 12000)] {
            let input = try #require(policy.plan(for: page)?.input)
            #expect(input.width * input.height <= largest && input.width * input.height > largest / 2, "\(page): \(input)")
            #expect(input.width % 32 == 0 && input.height % 32 == 0 && min(input.width, input.height) >= 32)
            #expect((input.width > input.height) == (page.width > page.height), "\(page): \(input)")
        }
        // Pages of ordinary proportions keep RapidOCR's input: an A4 scan, a receipt five times
        // as long as it is wide (736 wide, as RapidOCR makes it).
        #expect(policy.plan(for: a4)?.input == PixelSize(width: 1408, height: 1984))
        #expect(policy.plan(for: PixelSize(width: 600, height: 3000))?.input == PixelSize(width: 736, height: 3808))
    }

    @Test func tallWordsShrinkTheInputOnlyWhenSmallerThanRapidOCRs() throws {
        var policy = DetectionPolicy()
        policy.shrinkingWordHeight = 20
        policy.shrinkingXHeight = nil
        let rapid = try #require(policy.plan(for: a4))
        // Words 50 px tall: scaled by 0.4 to 20 px, under RapidOCR's 2000 px bound.
        let large = try #require(policy.plan(for: a4, wordHeight: 50))
        #expect(abs(Double(large.input.width) - 2480 * 0.4) <= 32)
        #expect(large.input.width * large.input.height < rapid.input.width * rapid.input.height)
        // Words 12 px tall would need the page enlarged: RapidOCR's input is kept.
        #expect(policy.plan(for: a4, wordHeight: 12) == rapid)
        // The word height wins over the x-height rule; without a word height that rule holds.
        #expect(policy.plan(for: a4, xHeight: 40, wordHeight: 50) == large)
        #expect(policy.plan(for: a4, xHeight: 40) == policy.letterPlan(for: a4, xHeight: 40))
        // Without the rule a word height changes nothing.
        policy.shrinkingWordHeight = nil
        #expect(policy.plan(for: a4, wordHeight: 50) == rapid)
    }
}
