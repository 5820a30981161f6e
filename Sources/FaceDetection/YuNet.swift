import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

/// Faces and their five landmarks from YuNet (libfacedetection, Shiqi Yu et al., 3-clause BSD),
/// a 53,000-weight CNN, evaluated by `Network` from the program and weights in `models/yunet/`.
///
/// The network reads the picture as B, G, R samples 0...255, padded with zeros at the bottom and
/// right to a multiple of 32; a backbone of depthwise-separable convolutions and max pools gives
/// three maps (strides 8, 16, 32), a neck adds each coarser map, scaled up, to the next finer,
/// and at each stride four small heads say, per cell, whether a face is there, its box and its
/// landmarks. `models/yunet/README.md` describes every layer, the program and the decoding,
/// which is done here.
///
/// An engine: build it once (the program is checked then) and run it page after page on one
/// thread; the network keeps its maps for the largest page seen and reuses them.
public final class YuNetDetector {
    public struct Options: Hashable, Sendable {
        /// Faces scoring below this are dropped; the score is sqrt(class x objectness), 0...1.
        /// 0.6 is the best F1 at a 640 px copy on the benchmark's photos (docs/faces.md);
        /// upstream's 0.2 finds many false faces.
        public var scoreThreshold: Double = 0.6
        /// A candidate overlapping a better face by more than this (IoU) is the same face.
        public var overlapThreshold: Double = 0.45
        public var maximumFaces: Int = 512
        /// What a face must look like beyond its score; nil reports every detection.
        public var shape: ShapePolicy? = ShapePolicy()

        public init() {}
    }

    /// The shape of a face's box: YuNet draws faces taller than wide, and round things (a
    /// watch dial ringed with digits, an ornament) it takes for faces square. Measured at
    /// Gloss's 640 px copy (`bench/faces/shapes.py`, docs/faces.md "No face on a document"): on
    /// the benchmark's photos the 119 true faces scoring 0.6 or more have a height / width of
    /// 0.91 to 1.74 (5th percentile 1.15, median 1.29), the one under 1.06 a close-up 414 px
    /// wide at 0.69; the only candidate near 0.6 on 80 real document pages that is no printed
    /// face is a wristwatch dial, 65 px, 0.94 at 0.52 (1.004 at 0.705 in a copy Pillow's box
    /// filter makes); the printed ones: 1.18 to 1.31.
    public struct ShapePolicy: Hashable, Sendable {
        /// A box with height / width under this is square...
        public var squareAspect: Double = 1.06
        /// ...and a square box is a face only when it scores this much (the dial: 0.705 at
        /// most; the true face under 1.06: 0.69, kept by its size)...
        public var squareMinimumScore: Double = 0.8
        /// ...or is larger than this share of the picture's longest side (a close-up, whose
        /// box the network squashes: the 414 px face above is 0.65 of its 640).
        public var squareMaximumShare: Double = 0.25

        public init() {}

        /// Whether `detection`, in a picture of `size`, has the shape of a face.
        public func admits(_ detection: Detection, in size: PixelSize) -> Bool {
            let width = Double(detection.x2 - detection.x1), height = Double(detection.y2 - detection.y1)
            guard width > 0, height / width < squareAspect else { return true }
            return Double(detection.score) >= squareMinimumScore || width > squareMaximumShare * Double(max(size.width, size.height))
        }
    }

    /// A candidate in the pixels of the image given, before it becomes a `Face`.
    public struct Detection: Sendable, Equatable {
        public var x1: Float, y1: Float, x2: Float, y2: Float
        public var score: Float
        /// Eye on the image's left, eye on the image's right, nose tip, mouth corner on the
        /// image's left, mouth corner on the image's right: (x, y) each.
        public var landmarks: [Float]
        /// Candidates this face suppressed (the same face seen from neighbouring cells).
        public var merged: Int
    }

    /// Where the heads are in the program's one output (`models/yunet/README.md`): a map at
    /// stride 8 of 16 channels a level (stride 8, 16, 32), each coarser level's cells repeated
    /// over the stride-8 cells they cover. Within a level: class, objectness, the box's four,
    /// the landmarks' ten.
    enum Output {
        static let channelsPerLevel = 16
        static let levels = 3
        static let classes = 0, objectness = 1, box = 2, landmarks = 6
        /// The padded picture's side is a multiple of this; the output's stride is 8.
        static let multiple = 32, stride = 8
    }

    public var options: Options
    private var network: Network

    /// The network of `model`'s program, checked: a program at all (a version 1 file of named
    /// weights has none), its layers' shapes (`Network`), and a 3-channel input giving YuNet's
    /// 48 channels at stride 8, by a run on a 32 x 32 picture of zeros.
    public init(model: ModelFile, path: String, options: Options = Options()) throws(ModelError) {
        self.options = options
        guard !model.program.isEmpty else {
            throw ModelError(path: path, reason: "no program (a model file of version 1?); models/yunet/convert.py writes one")
        }
        // fp32 products: AMX's bf16 product was measured on the text reader only.
        network = try Network(model: model, path: path, products: .fp32)
        let probe = FeatureMap(channels: 3, height: Output.multiple, width: Output.multiple)
        let made: FeatureMap
        do {
            made = try network.run(probe)
        } catch {
            throw ModelError(path: path, reason: "the program does not run on a 3-channel picture: \(error)")
        }
        let side = Output.multiple / Output.stride
        guard (made.channels, made.height, made.width) == (Output.channelsPerLevel * Output.levels, side, side) else {
            throw ModelError(path: path, reason: "the program gives \(made.channels) x \(made.height) x \(made.width) for a "
                             + "32 x 32 picture, not YuNet's \(Output.channelsPerLevel * Output.levels) x \(side) x \(side)")
        }
    }

    /// The faces in `image`, best first: the detections the shape policy admits. Checks the
    /// calling task's cancellation between layers.
    public func detect(in image: Raster) throws -> [Face] {
        let size = image.size
        return faces(among: try detections(in: image), in: size).map { face(from: $0, in: size) }
    }

    /// The detections of a picture of `size` that `options.shape` admits as faces.
    public func faces(among detections: [Detection], in size: PixelSize) -> [Detection] {
        guard let shape = options.shape else { return detections }
        return detections.filter { shape.admits($0, in: size) }
    }

    /// The raw detections in the pixels of `image`, best first, after suppression: before the
    /// shape policy, as upstream's C++ gives them.
    public func detections(in image: Raster) throws -> [Detection] {
        guard image.width > 0, image.height > 0 else { return [] }
        let height = (image.height + Output.multiple - 1) / Output.multiple * Output.multiple
        let width = (image.width + Output.multiple - 1) / Output.multiple * Output.multiple
        let heads: FeatureMap
        do throws(NetworkError) {
            heads = try network.run(height: height, width: width, filling: { map in Self.fill(&map, from: image) },
                                    isCancelled: { Task.isCancelled })
        } catch .cancelled {
            throw CancellationError()
        } catch {
            throw error
        }
        var candidates: [Detection] = []
        for level in 0..<Output.levels { decode(heads, level: level, into: &candidates) }
        return suppressed(candidates)
    }

    /// The picture as B, G, R planes of 0...255, padded with zeros at the bottom and right. A
    /// grey picture's one plane is written three times: a second network whose stem reads one
    /// plane (its weights summed over B, G, R) measured 0.96 to 1.01 of this time on grey
    /// pictures at 512 and 640 px, within the noise, for a second set of maps.
    private static func fill(_ input: inout FeatureMap, from image: Raster) {
        let height = input.height, width = input.width, plane = height * width
        let channels = image.channels, sourceWidth = image.width
        image.pixels.withUnsafeBufferPointer { source in
            input.storage.withUnsafeMutableBufferPointer { target in
                target.baseAddress!.update(repeating: 0, count: 3 * plane)
                for y in 0..<image.height {
                    let row = source.baseAddress! + y * sourceWidth * channels
                    let blue = target.baseAddress! + y * width, green = blue + plane, red = green + plane
                    if channels == 1 {
                        for x in 0..<sourceWidth {
                            let value = Float(row[x])
                            blue[x] = value
                            green[x] = value
                            red[x] = value
                        }
                        continue
                    }
                    for x in 0..<sourceWidth {
                        // Raster is RGB; the network wants B, G, R.
                        let pixel = row + x * channels
                        blue[x] = Float(pixel[2])
                        green[x] = Float(pixel[1])
                        red[x] = Float(pixel[0])
                    }
                }
            }
        }
    }

    // MARK: Decoding

    /// Every cell of one stride whose score reaches the threshold, as a box and landmarks.
    private func decode(_ heads: FeatureMap, level: Int, into candidates: inout [Detection]) {
        let factor = 1 << level, stride = Float(Output.stride << level)
        let plane = heads.height * heads.width, mapWidth = heads.width
        let rows = heads.height / factor, columns = heads.width / factor
        let threshold = Float(options.scoreThreshold)
        heads.storage.withUnsafeBufferPointer { values in
            let base = values.baseAddress! + level * Output.channelsPerLevel * plane
            func channel(_ index: Int) -> UnsafePointer<Float> { base + index * plane }
            let classes = channel(Output.classes), objectness = channel(Output.objectness)
            for row in 0..<rows {
                for column in 0..<columns {
                    let cell = row * factor * mapWidth + column * factor
                    let score = (Self.sigmoid(classes[cell]) * Self.sigmoid(objectness[cell])).squareRoot()
                    guard score >= threshold else { continue }
                    let priorX = Float(column) * stride, priorY = Float(row) * stride
                    func box(_ index: Int) -> Float { channel(Output.box + index)[cell] }
                    let centreX = box(0) * stride + priorX, centreY = box(1) * stride + priorY
                    let width = exp(box(2)) * stride, height = exp(box(3)) * stride
                    let landmarks = (0..<10).map { k in
                        channel(Output.landmarks + k)[cell] * stride + (k % 2 == 0 ? priorX : priorY)
                    }
                    candidates.append(Detection(x1: centreX - width / 2, y1: centreY - height / 2,
                                                x2: centreX + width / 2, y2: centreY + height / 2,
                                                score: score, landmarks: landmarks, merged: 0))
                }
            }
        }
    }

    static func sigmoid(_ value: Float) -> Float {
        1 / (1 + exp(-min(max(value, -88.3762626647949), 88.3762626647949)))
    }

    /// Greedy non-maximum suppression, best score first (ties in candidate order): a candidate
    /// is kept when it overlaps no kept face by more than the threshold.
    private func suppressed(_ candidates: [Detection]) -> [Detection] {
        let order = candidates.indices.sorted { (candidates[$0].score, -$0) > (candidates[$1].score, -$1) }
        let limit = Float(options.overlapThreshold)
        var kept: [Detection] = []
        for index in order {
            let candidate = candidates[index]
            if let better = kept.firstIndex(where: { Self.overlap($0, candidate) > limit }) {
                kept[better].merged += 1
                continue
            }
            if kept.count < options.maximumFaces { kept.append(candidate) }
        }
        return kept
    }

    static func overlap(_ a: Detection, _ b: Detection) -> Float {
        let width = min(a.x2, b.x2) - max(a.x1, b.x1), height = min(a.y2, b.y2) - max(a.y1, b.y1)
        guard width > 0, height > 0 else { return 0 }
        let shared = width * height
        return shared / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - shared)
    }

    /// A detection in the normalised currency, its landmarks all seen by the network. The
    /// network sees the picture padded to a multiple of 32, and a face the picture's edge cuts
    /// is decoded past that edge: its box and landmarks are kept within the picture (0...1).
    private func face(from detection: Detection, in size: PixelSize) -> Face {
        func point(_ x: Float, _ y: Float) -> NormalizedPoint {
            NormalizedPoint(PixelPoint(x: min(max(Double(x), 0), Double(size.width)), y: min(max(Double(y), 0), Double(size.height))),
                            in: size)
        }
        func landmark(_ index: Int) -> Face.Landmark {
            Face.Landmark(position: point(detection.landmarks[2 * index], detection.landmarks[2 * index + 1]), source: .detected)
        }
        let topLeft = point(detection.x1, detection.y1), bottomRight = point(detection.x2, detection.y2)
        let mouthLeft = landmark(3), mouthRight = landmark(4)
        let mouth = NormalizedPoint(x: (mouthLeft.position.x + mouthRight.position.x) / 2,
                                    y: (mouthLeft.position.y + mouthRight.position.y) / 2)
        var face = Face(box: NormalizedRect(x: topLeft.x, y: bottomRight.y, width: bottomRight.x - topLeft.x,
                                            height: topLeft.y - bottomRight.y),
                        confidence: Double(detection.score), neighbors: detection.merged, stageMargin: 0,
                        leftEye: landmark(0), rightEye: landmark(1), mouth: Face.Landmark(position: mouth, source: .detected),
                        hasSmile: false)
        face.nose = landmark(2)
        face.mouthLeft = mouthLeft
        face.mouthRight = mouthRight
        return face
    }
}
