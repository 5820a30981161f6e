import CZlib
import Foundation
import GlossGeometry
import GlossImaging
import GlossNeuralNetwork
import GlossNeuralReading
import GlossTestSupport
import Testing

/// Detection against RapidOCR 3.10.0 on onnxruntime's probability maps of text fixtures
/// (`Golden/README.md` says how they were recorded): the same detector input size and bytes,
/// the same boxes within a pixel.
struct DetectionGoldenTests {
    struct Plan: Decodable {
        var page: [Int]
        var bounded: [Int]?
        var padding: Int?
        var input: [Int]?
        var ratio: [Double]?
    }

    struct Crop: Decodable {
        var x: Int, y: Int, width: Int, height: Int
        var bgr: String
    }

    struct Page: Decodable {
        var fixture: String?
        var plan: Plan
        var boxes: [[[Double]]]
        var scores: [Double]
        var inputCrop: Crop
    }

    struct Detection: Decodable {
        var pages: [String: Page]
    }

    static let golden: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Golden")
    }()

    static func detection() throws -> Detection {
        try JSONDecoder().decode(Detection.self, from: Data(contentsOf: golden.appendingPathComponent("detection.json")))
    }

    /// The `count` bytes of the zlib-compressed golden file `name`.
    static func inflate(_ name: String, count: Int) throws -> [UInt8] {
        let compressed = [UInt8](try Data(contentsOf: golden.appendingPathComponent(name)))
        var bytes = [UInt8](repeating: 0, count: count)
        var length = uLongf(count)
        let status = bytes.withUnsafeMutableBufferPointer { out in
            compressed.withUnsafeBufferPointer { uncompress(out.baseAddress, &length, $0.baseAddress, uLong($0.count)) }
        }
        try #require(status == Z_OK && Int(length) == count, "\(name): zlib status \(status), \(length) bytes")
        return bytes
    }

    /// The byte map of `NAME.map` as probabilities (byte / 255).
    static func map(_ name: String, size: PixelSize) throws -> FeatureMap {
        let bytes = try inflate("\(name).map", count: 8 + size.pixelCount)
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        try #require(word(0) == size.height && word(4) == size.width)
        return FeatureMap(channels: 1, height: size.height, width: size.width, values: bytes[8...].map { Float($0) / 255 })
    }

    static func expect(_ plan: DetectorPlan?, equals golden: Plan) {
        let page = PixelSize(width: golden.page[0], height: golden.page[1])
        guard let input = golden.input, let bounded = golden.bounded, let ratio = golden.ratio else {
            #expect(plan == nil, "\(page): RapidOCR gives no input")
            return
        }
        // RapidOCR's input, but within Gloss's bound on its area (a page 20 times as long as it
        // is wide: RapidOCR enlarges it to 736 x 13984).
        #expect(plan?.input == DetectionPolicy.rapidOCR.withinLargestArea(PixelSize(width: input[0], height: input[1])), "\(page)")
        #expect(plan?.bounded == PixelSize(width: bounded[0], height: bounded[1]), "\(page)")
        #expect(plan?.padding == golden.padding, "\(page)")
        #expect(plan?.ratioX == ratio[0] && plan?.ratioY == ratio[1], "\(page)")
    }

    @Test func theInputSizeIsRapidOCRs() throws {
        let plans = try JSONDecoder().decode([Plan].self, from: Data(contentsOf: Self.golden.appendingPathComponent("plans.json")))
        #expect(plans.count >= 10)
        for golden in plans {
            Self.expect(DetectionPolicy.rapidOCR.plan(for: PixelSize(width: golden.page[0], height: golden.page[1])), equals: golden)
        }
    }

    @Test(arguments: ["few-words", "sans", "serif", "scan", "sans-tilted"])
    func theBoxesAreRapidOCRs(name: String) throws {
        let page = try #require(try Self.detection().pages[name])
        let plan = try #require(DetectionPolicy.rapidOCR.plan(for: PixelSize(width: page.plan.page[0], height: page.plan.page[1])))
        Self.expect(plan, equals: page.plan)
        let boxes = BoxFinder.boxes(in: try Self.map(name, size: plan.input), plan: plan)
        #expect(boxes.count == page.boxes.count, "\(name): \(boxes.count) boxes, RapidOCR \(page.boxes.count)")
        for (index, (box, golden)) in zip(boxes, page.boxes).enumerated() {
            let worst = zip(box.corners, golden).map { max(abs($0.x - $1[0]), abs($0.y - $1[1])) }.max() ?? .infinity
            #expect(worst <= 1, "\(name) box \(index): \(box.corners) against \(golden)")
            // OpenCV's corners carry float32 error (600.99994 for 601) that its truncation turns
            // into a polygon a pixel higher or further left, so its means differ by up to 0.04.
            #expect(abs(box.score - page.scores[index]) < 0.05, "\(name) box \(index): score \(box.score) against \(page.scores[index])")
        }
    }

    /// The resized page's bytes (B, G, R) equal cv2.resize's on a crop of the input.
    @Test(arguments: ["few-words", "sans", "serif", "scan"])
    func theInputIsRapidOCRs(name: String) throws {
        let page = try #require(try Self.detection().pages[name])
        let raster = try ImageFile(contentsOf: Fixtures.path(try #require(page.fixture))).decodePage(0).raster
        let plan = try #require(DetectionPolicy.rapidOCR.plan(for: raster.size))
        let input = DetectorInput(page: raster, plan: plan)
        #expect(input.map.channels == 3 && input.map.width == plan.input.width && input.map.height == plan.input.height)
        let crop = page.inputCrop
        let hex = Array(crop.bgr.utf8)
        var differences = 0
        for y in 0..<crop.height {
            for x in 0..<crop.width {
                for c in 0..<3 {
                    let at = 2 * ((y * crop.width + x) * 3 + c)
                    let byte = Float(UInt8(String(decoding: hex[at..<(at + 2)], as: UTF8.self), radix: 16)!)
                    let expected = Float(Double(byte * Float(1.0 / 255.0)) * 2 - 1)
                    if input.map[c, crop.y + y, crop.x + x] != expected { differences += 1 }
                }
            }
        }
        #expect(differences == 0, "\(name): \(differences) of \(crop.width * crop.height * 3) samples differ from cv2.resize")
    }

    /// LineCrop of `sans.png`'s first line against `get_rotate_crop_image` (bicubic, OpenCV's
    /// fixed-point weights): the same size, the grey values within a few levels.
    @Test func aLineIsCutAsRapidOCRCutsIt() throws {
        let page = try #require(try Self.detection().pages["sans"])
        let raster = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage(0).raster
        let corners = page.boxes[0].map { PixelPoint(x: $0[0], y: $0[1]) }
        let crop = try #require(LineCrop(page: raster, corners: corners))
        let size = crop.image.size
        let golden = try Self.inflate("sans-line.crop", count: 8 + size.pixelCount)
        func word(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(golden[at + $1]) << (8 * $1) } }
        #expect(word(0) == size.width && word(4) == size.height, "\(size) against \(word(0))x\(word(4))")
        let differences = zip(crop.image.pixels, golden[8...]).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        // Sampled on OpenCV 4's 1/32-pixel grid, as LineCrop did, the mean was 0.16 and the largest 6.
        #expect(mean < 0.01 && (differences.max() ?? 0) <= 1, "mean difference \(mean), largest \(differences.max() ?? 0)")
    }
}
