import Foundation
import GlossContract
import GlossGeometry
import GlossImaging
import GlossNeuralNetwork

/// Faces and their five landmarks from YuNet (libfacedetection, Shiqi Yu et al., 3-clause BSD),
/// a 53,000-weight CNN, evaluated here in Swift from the weights in `models/yunet/`.
///
/// The network reads the picture as B, G, R samples 0...255, padded with zeros at the bottom and
/// right to a multiple of 32; a backbone of depthwise-separable convolutions and max pools gives
/// three maps (strides 8, 16, 32), a neck adds each coarser map, scaled up, to the next finer,
/// and at each stride four small heads say, per cell, whether a face is there, its box and its
/// landmarks. `models/yunet/README.md` describes every layer and the decoding.
///
/// An engine: build it once (the weights are checked then) and run it page after page on one
/// thread; its activations are allocated once for the largest page seen and reused.
public final class YuNetDetector {
    public struct Options: Hashable, Sendable {
        /// Faces scoring below this are dropped; the score is sqrt(class x objectness), 0...1.
        /// 0.6 is the best F1 at a 640 px copy on the benchmark's photos (docs/faces.md);
        /// upstream's 0.2 finds many false faces.
        public var scoreThreshold: Double = 0.6
        /// A candidate overlapping a better face by more than this (IoU) is the same face.
        public var overlapThreshold: Double = 0.45
        public var maximumFaces: Int = 512

        public init() {}
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

    struct Convolution {
        let weights: [Float]
        let bias: [Float]
    }

    /// A 1x1 convolution then a depthwise 3x3 one: the network's building block.
    struct Separable {
        let pointwise: Convolution
        let depthwise: Convolution
    }

    /// The four heads of one stride: class, box, landmarks, objectness.
    struct Heads {
        let classes: Separable
        let box: Separable
        let landmarks: Separable
        let objectness: Separable
    }

    public var options: Options
    private let stem: Convolution
    /// The stem for a grey picture, whose three planes are the same: each output's weights
    /// summed over B, G and R, so the first layer reads one plane instead of three.
    private let greyStem: Convolution
    /// model0's block after the stem, then the two blocks of each of model1...model5.
    private let backbone: [Separable]
    /// The neck's block per stride: 8, 16, 32.
    private let lateral: [Separable]
    private let heads: [Heads]

    // Activations, reused from page to page.
    private var input = FeatureMap(channels: 0, height: 0, width: 0)
    private var a = FeatureMap(channels: 0, height: 0, width: 0)
    private var b = FeatureMap(channels: 0, height: 0, width: 0)
    private var between = FeatureMap(channels: 0, height: 0, width: 0)
    private var levels = [FeatureMap](repeating: FeatureMap(channels: 0, height: 0, width: 0), count: 3)
    private var necks = [FeatureMap](repeating: FeatureMap(channels: 0, height: 0, width: 0), count: 3)
    private var outputs = [FeatureMap](repeating: FeatureMap(channels: 0, height: 0, width: 0), count: 4)
    private var scratch: [Float] = []

    /// The weights in the order `models/yunet/README.md` lists them, checked by name and shape.
    public init(model: ModelFile, path: String, options: Options = Options()) throws(ModelError) {
        self.options = options
        var tensors = model.tensors[...]
        func take(_ name: String, _ shape: [Int]) throws(ModelError) -> Convolution {
            guard tensors.count >= 2 else { throw ModelError(path: path, reason: "ends before \(name)") }
            let weight = tensors.removeFirst(), bias = tensors.removeFirst()
            guard weight.name == name + "_weight", bias.name == name + "_bias" else {
                throw ModelError(path: path, reason: "expected \(name), found \(weight.name) and \(bias.name)")
            }
            guard weight.shape == shape, bias.shape == [shape[0]] else {
                throw ModelError(path: path, reason: "\(name): shapes \(weight.shape) and \(bias.shape), expected \(shape)")
            }
            return Convolution(weights: weight.values, bias: bias.values)
        }
        func separable(_ name: String, inputs: Int, outputs: Int) throws(ModelError) -> Separable {
            Separable(pointwise: try take(name + "_pw", [outputs, inputs]), depthwise: try take(name + "_dw", [outputs, 3, 3]))
        }
        stem = try take("backbone__model0_pw", [16, 3, 3, 3])
        greyStem = Convolution(weights: (0..<16 * 9).map { [stem] index in
            let output = index / 9, tap = index % 9
            return (0..<3).reduce(Float(0)) { $0 + stem.weights[(output * 3 + $1) * 9 + tap] }
        }, bias: stem.bias)
        var backbone = [try separable("backbone__model0_dp", inputs: 16, outputs: 16)]
        for (number, channels) in [(1, (16, 16, 32)), (2, (32, 32, 64)), (3, (64, 64, 64)), (4, (64, 64, 64)), (5, (64, 64, 64))] {
            backbone.append(try separable("backbone__model\(number)_dp1", inputs: channels.0, outputs: channels.1))
            backbone.append(try separable("backbone__model\(number)_dp2", inputs: channels.1, outputs: channels.2))
        }
        self.backbone = backbone
        var lateral: [Separable?] = [nil, nil, nil], heads: [Heads?] = [nil, nil, nil]
        for level in [2, 1, 0] {
            lateral[level] = try separable("neck__lateral_convs__\(level)", inputs: 64, outputs: 64)
            func head(_ kind: String, _ count: Int) throws(ModelError) -> Separable {
                try separable("bbox_head__multi_level_\(kind)__\(level)", inputs: 64, outputs: count)
            }
            heads[level] = Heads(classes: try head("cls", 1), box: try head("bbox", 4), landmarks: try head("kps", 10),
                                 objectness: try head("obj", 1))
        }
        guard tensors.isEmpty else { throw ModelError(path: path, reason: "\(tensors.count) tensors more than YuNet has") }
        self.lateral = lateral.map { $0! }
        self.heads = heads.map { $0! }
    }

    /// The faces in `image`, best first. Checks the calling task's cancellation between layers.
    public func detect(in image: Raster) throws -> [Face] {
        let size = image.size
        return try detections(in: image).map { face(from: $0, in: size) }
    }

    /// The raw detections in the pixels of `image`, best first, after suppression.
    public func detections(in image: Raster) throws -> [Detection] {
        guard image.width > 0, image.height > 0 else { return [] }
        try run(on: image)
        var candidates: [Detection] = []
        for level in 0..<3 { decode(level: level, into: &candidates) }
        return suppressed(candidates)
    }

    // MARK: The network

    private func run(on image: Raster) throws {
        fill(from: image)
        let first = image.channels == 1 ? greyStem : stem
        Layers.convolution3x3Stride2(input, weights: first.weights, bias: first.bias, relu: true, into: &a, scratch: &scratch)
        separable(a, backbone[0], relu: true, into: &b)
        Layers.maxPool2x2(b, into: &a)
        try Task.checkCancellation()
        separable(a, backbone[1], relu: true, into: &b)    // model1
        separable(b, backbone[2], relu: true, into: &a)
        separable(a, backbone[3], relu: true, into: &b)    // model2
        separable(b, backbone[4], relu: true, into: &a)
        for (level, block) in [(0, 5), (1, 7), (2, 9)] {  // model3, model4, model5
            try Task.checkCancellation()
            // Each level pools the one before it, read in place: a copy of a level into `a`
            // would share its storage and make the next write to `a` allocate afresh.
            Layers.maxPool2x2(level == 0 ? a : levels[level - 1], into: &b)
            separable(b, backbone[block], relu: true, into: &a)
            separable(a, backbone[block + 1], relu: true, into: &levels[level])
        }
        // The neck, coarse to fine: each level adds the coarser level's output, scaled up.
        try Task.checkCancellation()
        separable(levels[2], lateral[2], relu: true, into: &necks[2])
        for level in [1, 0] {
            Layers.addUpsampled(necks[level + 1], to: &levels[level])
            separable(levels[level], lateral[level], relu: true, into: &necks[level])
        }
    }

    /// The picture as B, G, R planes of 0...255 (one plane for a grey picture, read by the grey
    /// stem), padded with zeros to a multiple of 32.
    private func fill(from image: Raster) {
        let height = (image.height + 31) / 32 * 32, width = (image.width + 31) / 32 * 32
        let channels = image.channels, planes = channels == 1 ? 1 : 3
        input.reshape(channels: planes, height: height, width: width)
        let plane = height * width, sourceWidth = image.width
        image.pixels.withUnsafeBufferPointer { source in
            input.storage.withUnsafeMutableBufferPointer { target in
                target.baseAddress!.update(repeating: 0, count: planes * plane)
                for y in 0..<image.height {
                    let row = source.baseAddress! + y * sourceWidth * channels
                    if channels == 1 {
                        for x in 0..<sourceWidth { target[y * width + x] = Float(row[x]) }
                        continue
                    }
                    for x in 0..<sourceWidth {
                        // Raster is RGB; the network wants B, G, R.
                        let pixel = row + x * channels
                        target[y * width + x] = Float(pixel[2])
                        target[plane + y * width + x] = Float(pixel[1])
                        target[2 * plane + y * width + x] = Float(pixel[0])
                    }
                }
            }
        }
    }

    private func separable(_ source: FeatureMap, _ block: Separable, relu: Bool, into output: inout FeatureMap) {
        Layers.pointwise(source, weights: block.pointwise.weights, bias: block.pointwise.bias, relu: false, into: &between)
        Layers.depthwise3x3(between, weights: block.depthwise.weights, bias: block.depthwise.bias, relu: relu,
                            into: &output, scratch: &scratch)
    }

    // MARK: Decoding

    /// Every cell of one stride whose score reaches the threshold, as a box and landmarks.
    private func decode(level: Int, into candidates: inout [Detection]) {
        let stride = Float(8 << level)
        let head = heads[level]
        for (index, block) in [head.classes, head.objectness, head.box, head.landmarks].enumerated() {
            separable(necks[level], block, relu: false, into: &outputs[index])
        }
        let rows = necks[level].height, columns = necks[level].width, cells = rows * columns
        let threshold = Float(options.scoreThreshold)
        outputs[0].storage.withUnsafeBufferPointer { classes in
            outputs[1].storage.withUnsafeBufferPointer { objectness in
                outputs[2].storage.withUnsafeBufferPointer { box in
                    outputs[3].storage.withUnsafeBufferPointer { marks in
                        for cell in 0..<cells {
                            let score = (Self.sigmoid(classes[cell]) * Self.sigmoid(objectness[cell])).squareRoot()
                            guard score >= threshold else { continue }
                            let priorX = Float(cell % columns) * stride, priorY = Float(cell / columns) * stride
                            let centreX = box[cell] * stride + priorX, centreY = box[cells + cell] * stride + priorY
                            let width = exp(box[2 * cells + cell]) * stride, height = exp(box[3 * cells + cell]) * stride
                            let landmarks = (0..<10).map { k in marks[k * cells + cell] * stride + (k % 2 == 0 ? priorX : priorY) }
                            candidates.append(Detection(x1: centreX - width / 2, y1: centreY - height / 2,
                                                        x2: centreX + width / 2, y2: centreY + height / 2,
                                                        score: score, landmarks: landmarks, merged: 0))
                        }
                    }
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

    /// A detection in the normalised currency, its landmarks all seen by the network.
    private func face(from detection: Detection, in size: PixelSize) -> Face {
        func point(_ x: Float, _ y: Float) -> NormalizedPoint {
            NormalizedPoint(PixelPoint(x: Double(x), y: Double(y)), in: size)
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
