import GlossContract
import GlossGeometry
import GlossImaging

/// Finds frontal faces with OpenCV's trained cascades, then eyes, mouth and smile inside them.
///
/// A value holding immutable cascades: build it once, share it between tasks, call `detect`
/// from any of them. Detection is synchronous and deterministic (the same faces in the same
/// order whatever `threads` is), and checks the calling task's cancellation between scales.
public struct FaceDetector: Sendable {
    public struct Options: Hashable, Sendable {
        /// Scale step of the face scan (> 1).
        public var scaleFactor: Double = 1.1
        /// Merged raw hits a face needs (more than this many).
        public var minNeighbors: Int = 3
        /// Smallest face side in pixels; below about 30 px faces are mostly false alarms.
        public var minFaceSize: Int = 30
        /// Largest face side in pixels; 0 = no limit.
        public var maxFaceSize: Int = 0
        /// Look for eyes (and place the mouth) inside every face.
        public var findLandmarks: Bool = true
        /// Run the smile cascade on the lower part of every face.
        public var detectSmiles: Bool = true
        /// Threads for the face scan; 0 = one per core. Results do not depend on it.
        public var threads: Int = 1
        /// Drop faces in which the eye cascade finds no eye at all. Off by default, so the faces
        /// are exactly OpenCV's; on, it removes most of a cascade's false alarms on clutter and
        /// print (at the price of faces with sunglasses, closed eyes or small sizes).
        public var requireDetectedEye: Bool = false

        public init() {}
    }

    public let faceCascade: Cascade
    public let eyeCascade: Cascade?
    public let smileCascade: Cascade?
    public var options: Options

    public init(faceCascade: Cascade, eyeCascade: Cascade? = nil, smileCascade: Cascade? = nil,
                options: Options = Options()) {
        self.faceCascade = faceCascade
        self.eyeCascade = eyeCascade
        self.smileCascade = smileCascade
        self.options = options
    }

    /// The detector with Debian's `frontalface_default`, `eye` and `smile` cascades (parsed once
    /// per process).
    public static func standard(options: Options = Options()) throws(CascadeError) -> FaceDetector {
        FaceDetector(faceCascade: try Cascade.load(.frontalFaceDefault), eyeCascade: try Cascade.load(.eye),
                     smileCascade: try Cascade.load(.smile), options: options)
    }

    /// The faces in `image`, largest first.
    public func detect(in image: Raster) throws -> [Face] {
        let grey = image.grayscale()
        var parameters = DetectionParameters(scaleFactor: options.scaleFactor, minNeighbors: options.minNeighbors,
                                             threads: options.threads)
        if options.minFaceSize > 0 { parameters.minSize = PixelSize(width: options.minFaceSize, height: options.minFaceSize) }
        if options.maxFaceSize > 0 { parameters.maxSize = PixelSize(width: options.maxFaceSize, height: options.maxFaceSize) }
        let found = try faceCascade.detect(in: grey, parameters: parameters)
            .sorted { ($0.rect.width * $0.rect.height, -$0.rect.y, -$0.rect.x) > ($1.rect.width * $1.rect.height, -$1.rect.y, -$1.rect.x) }
        var faces: [Face] = []
        for detection in found {
            try Task.checkCancellation()
            let face = try describe(detection, in: grey)
            if options.requireDetectedEye && face.leftEye?.source != .detected && face.rightEye?.source != .detected {
                continue
            }
            faces.append(face)
        }
        return faces
    }

    private func describe(_ detection: ObjectDetection, in grey: Raster) throws -> Face {
        let box = detection.rect
        let size = grey.size
        var left: Face.Landmark?, right: Face.Landmark?, mouth: Face.Landmark?
        var smiling = false
        let n = detection.neighbors

        if options.findLandmarks || options.requireDetectedEye {
            let eyes = try findEyes(in: box, grey: grey)
            let eyeY = Double(box.y) + FaceGeometry.eyeHeight * Double(box.height)
            let estimatedLeft = PixelPoint(x: Double(box.x) + FaceGeometry.eyeInset * Double(box.width), y: eyeY)
            let estimatedRight = PixelPoint(x: Double(box.maxX) - FaceGeometry.eyeInset * Double(box.width), y: eyeY)
            let centreX = Double(box.x) + Double(box.width) / 2
            // A single eye places its partner by mirroring across the face's midline.
            let l = eyes.left ?? eyes.right.map { PixelPoint(x: 2 * centreX - $0.x, y: $0.y) } ?? estimatedLeft
            let r = eyes.right ?? eyes.left.map { PixelPoint(x: 2 * centreX - $0.x, y: $0.y) } ?? estimatedRight
            left = Face.Landmark(position: NormalizedPoint(l, in: size), source: eyes.left != nil ? .detected : .estimated)
            right = Face.Landmark(position: NormalizedPoint(r, in: size), source: eyes.right != nil ? .detected : .estimated)

            let smile = options.detectSmiles ? try findSmile(in: box, grey: grey) : nil
            if let smile {
                smiling = true
                mouth = Face.Landmark(position: NormalizedPoint(smile, in: size), source: .detected)
            } else {
                // Mouth below the eye midpoint, along the perpendicular of the eye line.
                let mx = (l.x + r.x) / 2, my = (l.y + r.y) / 2
                let dx = r.x - l.x, dy = r.y - l.y
                let k = FaceGeometry.mouthDrop
                var p = PixelPoint(x: mx - dy * k, y: my + dx * k)
                p.x = min(max(p.x, Double(box.x)), Double(box.maxX))
                p.y = min(max(p.y, Double(box.y)), Double(box.maxY))
                mouth = Face.Landmark(position: NormalizedPoint(p, in: size), source: .estimated)
            }
        } else if options.detectSmiles {
            smiling = try findSmile(in: box, grey: grey) != nil
        }

        return Face(box: NormalizedRect(box, in: size), confidence: Double(n) / Double(n + 5), neighbors: n,
                    stageMargin: detection.stageMargin, leftEye: left, rightEye: right, mouth: mouth, hasSmile: smiling)
    }

    /// Whether the smile cascade fires in the lower part of `box`, a face another detector
    /// found in `grey` (8-bit grey: convert once per picture, not once per face).
    public func smiles(in grey: Raster, within box: NormalizedRect) throws -> Bool {
        precondition(grey.layout == .gray, "smiles(in:within:) reads a grey picture")
        return try findSmile(in: PixelRect(box, in: grey.size), grey: grey) != nil
    }

    /// Eye centres (pixels of `grey`) found by the eye cascade in the upper half of `box`:
    /// the best-supported detection on each side of the face's midline.
    private func findEyes(in box: PixelRect, grey: Raster) throws -> (left: PixelPoint?, right: PixelPoint?) {
        guard let eyeCascade else { return (nil, nil) }
        let region = PixelRect(x: box.x, y: box.y + box.height / 10,
                               width: box.width, height: box.height * 6 / 10 - box.height / 10)
        guard let crop = FaceGeometry.crop(grey, region, width: FaceGeometry.eyeSearchWidth) else { return (nil, nil) }
        var parameters = DetectionParameters(scaleFactor: 1.1, minNeighbors: 2)
        let w = crop.image.width
        parameters.maxSize = PixelSize(width: w / 2, height: w / 2)
        let hits = try eyeCascade.detect(in: crop.image, parameters: parameters)
        let midX = Double(box.x) + Double(box.width) / 2
        let topHalf = Double(box.y) + Double(box.height) / 2
        var best: (left: (PixelPoint, Int, Double)?, right: (PixelPoint, Int, Double)?) = (nil, nil)
        for hit in hits {
            let c = crop.toImage(x: Double(hit.rect.x) + Double(hit.rect.width) / 2,
                                 y: Double(hit.rect.y) + Double(hit.rect.height) / 2)
            guard c.y < topHalf else { continue }
            let entry = (c, hit.neighbors, hit.stageMargin)
            func better(_ old: (PixelPoint, Int, Double)?) -> Bool {
                guard let old else { return true }
                return (entry.1, entry.2) > (old.1, old.2)
            }
            if c.x < midX {
                if better(best.left) { best.left = entry }
            } else if better(best.right) {
                best.right = entry
            }
        }
        return (best.left?.0, best.right?.0)
    }

    /// The centre of a smile found in the lower part of `box`, if the smile cascade fires there.
    private func findSmile(in box: PixelRect, grey: Raster) throws -> PixelPoint? {
        guard let smileCascade else { return nil }
        let top = box.y + box.height * 55 / 100
        let region = PixelRect(x: box.x + box.width / 10, y: top,
                               width: box.width - 2 * (box.width / 10), height: box.maxY - top)
        guard let crop = FaceGeometry.crop(grey, region, width: FaceGeometry.smileSearchWidth) else { return nil }
        let parameters = DetectionParameters(scaleFactor: 1.1, minNeighbors: FaceGeometry.smileNeighbors,
                                             minSize: PixelSize(width: crop.image.width / 4, height: crop.image.width / 8))
        let hits = try smileCascade.detect(in: crop.image, parameters: parameters)
        guard let best = hits.max(by: { ($0.neighbors, $0.stageMargin) < ($1.neighbors, $1.stageMargin) }) else { return nil }
        return crop.toImage(x: Double(best.rect.x) + Double(best.rect.width) / 2,
                            y: Double(best.rect.y) + Double(best.rect.height) / 2)
    }
}

/// Proportions of a face inside a frontal-face cascade box, and the search regions.
enum FaceGeometry {
    // Measured on frontalface_default boxes of the astronaut fixture at three sizes (the eye
    // cascade's hits): eyes 0.36 of the box down and 0.25-0.28 in from the sides; the mouth
    // about one eye distance below the eye line.
    /// Eye centres sit this far down the box...
    static let eyeHeight = 0.36
    /// ...and this far in from its sides.
    static let eyeInset = 0.265
    /// Mouth below the eye midpoint, in eye distances.
    static let mouthDrop = 1.0
    /// Regions are rescaled to these widths so the cascades see faces of one size: small faces
    /// are enlarged until eyes fill the 20 px eye window, big ones shrunk to save time.
    static let eyeSearchWidth = 120
    static let smileSearchWidth = 120
    /// The smile cascade fires loosely; OpenCV's samples ask for about 20 neighbours.
    static let smileNeighbors = 20

    struct Crop {
        var image: Raster
        var origin: PixelRect
        /// A point of the crop in pixels of the full image.
        func toImage(x: Double, y: Double) -> PixelPoint {
            PixelPoint(x: Double(origin.x) + x * Double(origin.width) / Double(image.width),
                       y: Double(origin.y) + y * Double(origin.height) / Double(image.height))
        }
    }

    /// `rect` of `grey` (clipped to it) resampled to `width` pixels across.
    static func crop(_ grey: Raster, _ rect: PixelRect, width: Int) -> Crop? {
        let x0 = max(0, rect.x), y0 = max(0, rect.y)
        let x1 = min(grey.width, rect.maxX), y1 = min(grey.height, rect.maxY)
        guard x1 - x0 >= 4, y1 - y0 >= 4 else { return nil }
        let w = x1 - x0, h = y1 - y0
        var pixels = [UInt8](repeating: 0, count: w * h)
        grey.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w { pixels[y * w + x] = src[(y0 + y) * grey.width + x0 + x] }
            }
        }
        let scale = Double(width) / Double(w)
        let th = max(1, roundEven(Double(h) * scale))
        var out = [UInt8](repeating: 0, count: width * th)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                Pyramid.resizeLinearExact(src.baseAddress!, width: w, height: h, into: dst.baseAddress!, width: width, height: th)
            }
        }
        return Crop(image: Raster(width: width, height: th, layout: .gray, pixels: out),
                    origin: PixelRect(x: x0, y: y0, width: w, height: h))
    }
}
