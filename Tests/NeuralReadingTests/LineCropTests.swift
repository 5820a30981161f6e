import Foundation
import GlossGeometry
import GlossImaging
import GlossNeuralReading
import Testing

/// LineCrop on synthetic pages: a rectangle drawn at an angle comes out level and the right way
/// round, and its pixels map back onto the page.
struct LineCropTests {
    /// A white grey page with a rectangle (centre, size, angle in degrees) whose left half is
    /// 40 and right half 140.
    static func page(width: Int, height: Int, cx: Double, cy: Double, w: Double, h: Double, degrees: Double) -> (Raster, [PixelPoint]) {
        let a = degrees * .pi / 180
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x) - cx, dy = Double(y) - cy
                let u = dx * cos(a) + dy * sin(a), v = -dx * sin(a) + dy * cos(a)
                if abs(u) <= w / 2 && abs(v) <= h / 2 { pixels[y * width + x] = u < 0 ? 40 : 140 }
            }
        }
        let corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)].map { u, v in
            PixelPoint(x: cx + u * cos(a) - v * sin(a), y: cy + u * sin(a) + v * cos(a))
        }
        return (Raster(width: width, height: height, layout: .gray, pixels: pixels), corners)
    }

    static func mean(_ image: Raster, x: Range<Int>, y: Range<Int>) -> Double {
        var sum = 0.0
        for row in y { for column in x { sum += Double(image[column, row]) } }
        return sum / Double(x.count * y.count)
    }

    @Test(arguments: [LineCrop.Interpolation.bicubic, .bilinear])
    func aTiltedLineComesOutLevel(interpolation: LineCrop.Interpolation) throws {
        let (page, corners) = Self.page(width: 320, height: 240, cx: 160, cy: 120, w: 180, h: 40, degrees: 20)
        var policy = DetectionPolicy.rapidOCR
        policy.cropInterpolation = interpolation
        let crop = try #require(LineCrop(page: page, corners: corners, policy: policy))
        #expect(!crop.isTurned)
        #expect(crop.image.size == PixelSize(width: 180, height: 40) || crop.image.size == PixelSize(width: 179, height: 39), "\(crop.image.size)")
        // Inside, away from the edges: the dark half on the left, the light one on the right.
        let left = Self.mean(crop.image, x: 10..<80, y: 8..<32), right = Self.mean(crop.image, x: 100..<170, y: 8..<32)
        #expect(abs(left - 40) < 3 && abs(right - 140) < 3, "\(left), \(right)")
        // The crop's pixels land back on the page where they were cut.
        let start = crop.pagePoint(PixelPoint(x: 0, y: 0)), end = crop.pagePoint(PixelPoint(x: 180, y: 40))
        #expect(abs(start.x - corners[0].x) < 0.01 && abs(start.y - corners[0].y) < 0.01)
        #expect(abs(end.x - corners[2].x) < 1 && abs(end.y - corners[2].y) < 1)
    }

    @Test func aTallLineIsTurned() throws {
        // Upright, 36 wide and 150 tall: turned counter-clockwise, its right (140) half is on top.
        let (page, corners) = Self.page(width: 200, height: 240, cx: 100, cy: 120, w: 36, h: 150, degrees: 0)
        let crop = try #require(LineCrop(page: page, corners: corners))
        #expect(crop.isTurned)
        #expect(crop.image.width == 150 && crop.image.height == 36, "\(crop.image.size)")
        let top = Self.mean(crop.image, x: 10..<140, y: 3..<14), bottom = Self.mean(crop.image, x: 10..<140, y: 22..<33)
        #expect(abs(top - 140) < 3 && abs(bottom - 40) < 3, "\(top), \(bottom)")
        // The turned image's top left is the upright crop's top right corner.
        let point = crop.pagePoint(PixelPoint(x: 0, y: 0))
        #expect(abs(point.x - (corners[0].x + 35)) < 0.01 && abs(point.y - corners[0].y) < 0.01, "\(point)")
    }

    /// RapidOCR's crop (`cv2.warpPerspective`, bicubic) of a tilted quadrilateral with
    /// fractional corners on random noise, partly off the page (`Golden/noise-line.crop`,
    /// `bench/neural/golden_crop.py`): OpenCV 5 samples at the exact position in single
    /// precision, so the crop is the same but for a rounding of a sample here and there.
    @Test func aCropOfNoiseIsOpenCVs() throws {
        let (pageWidth, pageHeight, cropWidth, cropHeight) = (96, 64, 92, 31)
        let bytes = try DetectionGoldenTests.inflate("noise-line.crop", count: 8 + pageWidth * pageHeight + 32 + 8 + cropWidth * cropHeight)
        let page = Raster(width: pageWidth, height: pageHeight, layout: .gray, pixels: Array(bytes[8..<(8 + pageWidth * pageHeight)]))
        let cornerBytes = 8 + pageWidth * pageHeight
        func float(_ at: Int) -> Double {
            Double(Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }))
        }
        let corners = (0..<4).map { PixelPoint(x: float(cornerBytes + 8 * $0), y: float(cornerBytes + 8 * $0 + 4)) }
        let crop = try #require(LineCrop(page: page, corners: corners))
        #expect(crop.image.size == PixelSize(width: cropWidth, height: cropHeight), "\(crop.image.size)")
        let golden = bytes[(cornerBytes + 32 + 8)...]
        let differences = zip(crop.image.pixels, golden).map { abs(Int($0) - Int($1)) }
        let differing = differences.filter { $0 > 0 }.count
        // Sampled on a 1/32-pixel grid in double precision (as LineCrop did), 1,883 of the 2,852 samples differ, by up to 5.
        #expect(differences.max() ?? 0 <= 1 && differing <= differences.count / 200, "\(differing) samples differ, by up to \(differences.max() ?? 0)")
    }

    @Test func aDegenerateLineIsNoCrop() {
        let page = Raster(width: 10, height: 10, layout: .rgb, filledWith: 255)
        let point = PixelPoint(x: 3, y: 3)
        #expect(LineCrop(page: page, corners: [point, point, point, point]) == nil)
    }
}
