import Foundation
@testable import GlossNeuralReading
import Testing

/// RapidOCR's unclip against pyclipper and OpenCV on 300 random line-like rectangles
/// (`Golden/unclip.json`, recorded by `bench/neural/golden_offset.py`; `Golden/README.md`).
struct UnclipGoldenTests {
    struct Case: Decodable {
        var box: [[Double]]
        var distance: Double
        var offset: [[Int]]
        var grown: [[Double]]
        var grownSide: Double
    }

    struct Cases: Decodable { var cases: [Case] }

    static func cases() throws -> [Case] {
        try JSONDecoder().decode(Cases.self, from: Data(contentsOf: DetectionGoldenTests.golden.appendingPathComponent("unclip.json"))).cases
    }

    /// Clipper's round offset gives the same outline: every point pyclipper returns is ours,
    /// and the convex hulls (all the minimum-area rectangle sees) are equal.
    @Test func roundOffsetMatchesPyclipper() throws {
        let cases = try Self.cases()
        #expect(cases.count == 300)
        var differing: [Int] = []
        for (index, item) in cases.enumerated() {
            let ours = RoundOffset.grown(item.box.map { SIMD2($0[0], $0[1]) }, by: item.distance)
            let theirs = item.offset.map { SIMD2($0[0], $0[1]) }
            let sameHull = Set(RotatedRectangle.convexHull(ours)) == Set(RotatedRectangle.convexHull(theirs))
            if !sameHull || !Set(theirs).isSubset(of: Set(ours)) { differing.append(index) }
        }
        #expect(differing.isEmpty, "cases \(differing.prefix(10)) of \(differing.count) differ from pyclipper")
    }

    /// The grown outline's minimum-area rectangle: OpenCV's corners (as a set) within 1e-3 px
    /// and its shorter side.
    @Test func grownRectangleMatchesOpenCV() throws {
        var differing: [Int] = []
        for (index, item) in try Self.cases().enumerated() {
            guard let rectangle = RotatedRectangle(around: item.offset.map { SIMD2($0[0], $0[1]) }) else {
                differing.append(index)
                continue
            }
            let theirs = item.grown.map { SIMD2($0[0], $0[1]) }
            let close = rectangle.corners.allSatisfy { corner in theirs.contains { abs($0.x - corner.x) < 1e-3 && abs($0.y - corner.y) < 1e-3 } }
            if !close || abs(rectangle.shorterSide - item.grownSide) > 1e-3 { differing.append(index) }
        }
        #expect(differing.isEmpty, "cases \(differing.prefix(10)) of \(differing.count) differ from OpenCV")
    }
}
