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
