import Dispatch
import GlossGeometry
import GlossImaging
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a cascade is run over an image; the defaults are OpenCV's `detectMultiScale` defaults,
/// so results can be compared one to one.
public struct DetectionParameters: Hashable, Sendable {
    /// Ratio between successive scales (> 1). Smaller is slower and finds more in-between sizes.
    public var scaleFactor: Double
    /// A merged detection must gather more than this many raw hits; 0 returns raw hits.
    public var minNeighbors: Int
    /// Smallest object in pixels of the input image; nil = the cascade's window.
    public var minSize: PixelSize?
    /// Largest object in pixels of the input image; nil = the whole image.
    public var maxSize: PixelSize?
    /// Relative edge tolerance when merging hits (OpenCV's GROUP_EPS).
    public var groupingEpsilon: Double
    /// Worker threads sharing the scales; 0 = one per core. The result does not depend on it.
    public var threads: Int

    public init(scaleFactor: Double = 1.1, minNeighbors: Int = 3, minSize: PixelSize? = nil,
                maxSize: PixelSize? = nil, groupingEpsilon: Double = 0.2, threads: Int = 1) {
        self.scaleFactor = scaleFactor
        self.minNeighbors = minNeighbors
        self.minSize = minSize
        self.maxSize = maxSize
        self.groupingEpsilon = groupingEpsilon
        self.threads = threads
    }
}

/// Parameters that cannot be run.
public struct DetectionParameterError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// One object found by a cascade, in pixels of the input image (top-left origin).
public struct ObjectDetection: Hashable, Sendable {
    public var rect: PixelRect
    /// Raw hits merged into this detection (1 for raw hits).
    public var neighbors: Int
    /// The largest amount by which a merged window's last-stage sum exceeded the stage
    /// threshold: a second, finer measure of how clearly the cascade accepted the object.
    public var stageMargin: Double
}

/// A raw hit: a window that passed every stage.
struct Candidate: Sendable {
    var rect: PixelRect
    var margin: Double
}

extension Cascade {
    /// Runs the cascade over `image` at every scale and merges the hits, like OpenCV's
    /// `CascadeClassifier::detectMultiScale` with the same parameters.
    ///
    /// The image is converted to grey if it is RGB. Between scales the surrounding task's
    /// cancellation is checked (`CancellationError`).
    public func detect(in image: Raster, parameters: DetectionParameters = DetectionParameters()) throws -> [ObjectDetection] {
        let candidates = try rawCandidates(in: image, parameters: parameters)
        let grouping = RectangleGrouping(candidates.map(\.rect), minNeighbors: parameters.minNeighbors,
                                         eps: parameters.groupingEpsilon)
        let bounds = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        return grouping.groups.compactMap { group in
            // OpenCV clips the merged rectangles to the image and drops empty ones.
            guard let rect = intersection(group.rect, bounds) else { return nil }
            let margin = group.members.map { candidates[$0].margin }.max() ?? 0
            return ObjectDetection(rect: rect, neighbors: group.members.count, stageMargin: margin)
        }
    }

    /// The windows that pass every stage, before grouping, in scale, row, column order.
    func rawCandidates(in image: Raster, parameters: DetectionParameters) throws -> [Candidate] {
        guard parameters.scaleFactor > 1, parameters.scaleFactor.isFinite else {
            throw DetectionParameterError(message: "scaleFactor must be > 1, not \(parameters.scaleFactor)")
        }
        let grey = image.grayscale()
        let plan = ScanPlan(cascade: self, imageWidth: grey.width, imageHeight: grey.height, parameters: parameters)
        guard !plan.scales.isEmpty else { return [] }
        let program = CascadeProgram(cascade: self, stride: plan.stride, tiltedOffset: plan.tiltedOffset)

        var perScale = [[Candidate]](repeating: [], count: plan.scales.count)
        let requested = parameters.threads > 0 ? parameters.threads : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let threads = Swift.max(1, Swift.min(requested, plan.scales.count))
        try grey.pixels.withUnsafeBufferPointer { pixels in
            let source = pixels.baseAddress!
            if threads == 1 {
                var workspace = Workspace(plan: plan)
                for index in plan.scales.indices {
                    try Task.checkCancellation()
                    perScale[index] = workspace.scan(scale: plan.scales[index], source: source, plan: plan, program: program)
                }
                return
            }
            // Workers take scales from a shared counter (largest first) and write each scale's
            // hits to its own slot, so the merged list is the same whatever the interleaving.
            let next = Atomic<Int>(0)
            let cancelled = Atomic<Bool>(false)
            perScale.withUnsafeMutableBufferPointer { slots in
                let shared = SharedBuffers(source: source, slots: slots.baseAddress!)
                DispatchQueue.concurrentPerform(iterations: threads) { _ in
                    var workspace = Workspace(plan: plan)
                    while true {
                        // Only a thread running inside the calling task sees its cancellation;
                        // it tells the others through the flag.
                        if Task.isCancelled { cancelled.store(true, ordering: .relaxed) }
                        if cancelled.load(ordering: .relaxed) { return }
                        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                        guard index < plan.scales.count else { return }
                        shared.slots[index] = workspace.scan(scale: plan.scales[index], source: shared.source,
                                                             plan: plan, program: program)
                    }
                }
            }
            if cancelled.load(ordering: .relaxed) { throw CancellationError() }
            try Task.checkCancellation()
        }
        return perScale.flatMap { $0 }
    }
}

/// The input pixels and the result slots, handed to the worker threads. Sound because the
/// buffers outlive `concurrentPerform` (it returns only when every worker has finished), the
/// input is only read, and each scale's slot is written by exactly one worker.
private struct SharedBuffers: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let slots: UnsafeMutablePointer<[Candidate]>
}

private func intersection(_ a: PixelRect, _ b: PixelRect) -> PixelRect? {
    let x0 = Swift.max(a.x, b.x), y0 = Swift.max(a.y, b.y)
    let x1 = Swift.min(a.maxX, b.maxX), y1 = Swift.min(a.maxY, b.maxY)
    guard x1 > x0, y1 > y0 else { return nil }
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
}

// MARK: - The scales

/// One scale of the scan: the image is shrunk by `factor`, the window stays the cascade's.
struct ScaleLevel: Sendable {
    var factor: Float
    var width: Int
    var height: Int
    /// 2 px below factor 2, 1 px from there on.
    var step: Int
}

/// Which scales to scan, decided exactly as OpenCV decides them (double-precision factor for
/// the window test, single-precision factor for the shrunk size), and the integral-image layout
/// shared by all of them.
struct ScanPlan: Sendable {
    var scales: [ScaleLevel] = []
    var imageWidth: Int
    var imageHeight: Int
    var window: PixelSize
    /// Row stride of every integral plane: wide enough for the largest scale.
    var stride: Int = 0
    var planeSize: Int = 0
    var tiltedOffset: Int = 0
    var needsSquares: Bool
    var needsTilted: Bool

    init(cascade: Cascade, imageWidth: Int, imageHeight: Int, parameters: DetectionParameters) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        window = cascade.windowSize
        needsSquares = cascade.featureType == .haar
        needsTilted = cascade.usesTiltedFeatures
        guard imageWidth > 0, imageHeight > 0 else { return }
        let maxSize = parameters.maxSize.flatMap { $0.width > 0 && $0.height > 0 ? $0 : nil }
            ?? PixelSize(width: imageWidth, height: imageHeight)
        let minSize = parameters.minSize ?? PixelSize(width: 0, height: 0)
        var factor = 1.0
        while true {
            let w = roundEven(Double(window.width) * factor), h = roundEven(Double(window.height) * factor)
            if w > maxSize.width || h > maxSize.height || w > imageWidth || h > imageHeight { break }
            if !(w < minSize.width || h < minSize.height) {
                let f = Float(factor)
                let level = ScaleLevel(factor: f,
                                       width: roundEven(Float(imageWidth) / f),
                                       height: roundEven(Float(imageHeight) / f),
                                       step: f >= 2 ? 1 : 2)
                if level.width >= window.width && level.height >= window.height { scales.append(level) }
            }
            factor *= parameters.scaleFactor
        }
        let maxWidth = scales.map(\.width).max() ?? 0, maxHeight = scales.map(\.height).max() ?? 0
        stride = maxWidth + 1
        planeSize = stride * (maxHeight + 1)
        tiltedOffset = needsTilted ? planeSize : 0
    }
}

// MARK: - The cascade, flattened for one integral-image stride

/// The cascade rewritten as flat arrays of ready-to-use offsets into the integral planes, so
/// that a feature costs four loads per rectangle and no lookups.
struct CascadeProgram: Sendable {
    enum Kind { case haarStumps, haarTrees, lbpStumps, lbpTrees }

    let kind: Kind
    let stageCounts: [Int]
    let stageThresholds: [Float]
    /// Per node: 12 offsets (Haar: 3 rectangles x 4 corners) or 16 (LBP: 4x4 grid corners).
    let offsets: [Int]
    /// Haar stumps: w0 w1 w2 threshold left right. Haar tree nodes: w0 w1 w2 threshold.
    let params: [Float]
    /// Trees: left, right per node. Stumps: unused.
    let children: [Int]
    /// LBP stumps: left, right per node. Trees: the cascade's leaves.
    let leaves: [Float]
    let subsets: [UInt32]
    /// Trees: first node and first leaf of each weak classifier.
    let weakNodes: [Int]
    let weakLeaves: [Int]
    /// The variance rectangle (window inset by 1 px), four corner offsets.
    let norm: (Int, Int, Int, Int)
    let normArea: Double

    init(cascade c: Cascade, stride: Int, tiltedOffset: Int) {
        let stump = c.isStumpBased
        switch (c.featureType, stump) {
        case (.haar, true): kind = .haarStumps
        case (.haar, false): kind = .haarTrees
        case (.lbp, true): kind = .lbpStumps
        case (.lbp, false): kind = .lbpTrees
        }
        stageCounts = c.stages.map(\.weakCount)
        stageThresholds = c.stages.map(\.threshold)
        func corner(_ x: Int32, _ y: Int32) -> Int { Int(x) + stride * Int(y) }

        var offsets: [Int] = [], params: [Float] = [], children: [Int] = []
        var leaves: [Float] = [], subsets: [UInt32] = []
        for (n, node) in c.nodes.enumerated() {
            let f = Int(node.feature)
            switch c.featureType {
            case .haar:
                let feature = c.haarFeatures[f]
                var weights: [Float] = [0, 0, 0]
                for k in 0..<3 {
                    guard k < feature.rects.count else { offsets += [0, 0, 0, 0]; continue }
                    let r = feature.rects[k]
                    weights[k] = r.weight
                    if feature.tilted {
                        let t = tiltedOffset
                        offsets += [t + corner(r.x, r.y), t + corner(r.x - r.height, r.y + r.height),
                                    t + corner(r.x + r.width, r.y + r.width),
                                    t + corner(r.x + r.width - r.height, r.y + r.width + r.height)]
                    } else {
                        offsets += [corner(r.x, r.y), corner(r.x + r.width, r.y),
                                    corner(r.x, r.y + r.height), corner(r.x + r.width, r.y + r.height)]
                    }
                }
                params += weights
                params.append(node.threshold)
            case .lbp:
                let cell = c.lbpFeatures[f]
                for row in Int32(0)..<4 {
                    for col in Int32(0)..<4 {
                        offsets.append(corner(cell.x + col * cell.width, cell.y + row * cell.height))
                    }
                }
                subsets += c.subsets[(n * 8)..<(n * 8 + 8)]
            }
            if stump {
                let leaf = c.weaks[n].firstLeaf
                if c.featureType == .haar {
                    params += [c.leaves[leaf], c.leaves[leaf + 1]]
                } else {
                    leaves += [c.leaves[leaf], c.leaves[leaf + 1]]
                }
            } else {
                children += [Int(node.left), Int(node.right)]
            }
        }
        if !stump { leaves = c.leaves }
        self.offsets = offsets
        self.params = params
        self.children = children
        self.leaves = leaves
        self.subsets = subsets
        weakNodes = c.weaks.map(\.firstNode)
        weakLeaves = c.weaks.map(\.firstLeaf)
        let w = Int32(c.windowSize.width), h = Int32(c.windowSize.height)
        norm = (corner(1, 1), corner(w - 1, 1), corner(1, h - 1), corner(w - 1, h - 1))
        normArea = Double((w - 2) * (h - 2))
    }
}

// MARK: - Scanning one scale

/// Buffers owned by one worker and reused for every scale it scans.
struct Workspace {
    var shrunk: [UInt8]
    var planes: [Int32]      // sum plane, then the tilted plane when needed
    var squares: [UInt32]

    init(plan: ScanPlan) {
        let maxPixels = plan.scales.map { $0.width * $0.height }.max() ?? 0
        shrunk = [UInt8](repeating: 0, count: maxPixels)
        planes = [Int32](repeating: 0, count: plan.planeSize * (plan.needsTilted ? 2 : 1))
        squares = [UInt32](repeating: 0, count: plan.needsSquares ? plan.planeSize : 0)
    }

    mutating func scan(scale: ScaleLevel, source: UnsafePointer<UInt8>, plan: ScanPlan,
                       program: CascadeProgram) -> [Candidate] {
        let w = scale.width, h = scale.height, stride = plan.stride
        return shrunk.withUnsafeMutableBufferPointer { shrunk in
            planes.withUnsafeMutableBufferPointer { planes in
                squares.withUnsafeMutableBufferPointer { squares in
                    let image = shrunk.baseAddress!
                    Pyramid.resizeLinearExact(source, width: plan.imageWidth, height: plan.imageHeight,
                                         into: image, width: w, height: h)
                    Pyramid.integrate(image, width: w, height: h, stride: stride, sum: planes.baseAddress!,
                                      squares: plan.needsSquares ? squares.baseAddress! : nil)
                    if plan.needsTilted {
                        Pyramid.integrateTilted(image, width: w, height: h, stride: stride,
                                                tilted: planes.baseAddress! + plan.tiltedOffset)
                    }
                    return Scanner.scan(program: program, planes: UnsafePointer(planes.baseAddress!),
                                        squares: plan.needsSquares ? UnsafePointer(squares.baseAddress!) : nil,
                                        scale: scale, stride: stride, window: plan.window)
                }
            }
        }
    }
}

enum Scanner {
    /// Slides the window over one scale with OpenCV's stride rules: `step` px in both
    /// directions, and one extra step in x after a window that fails the very first stage.
    static func scan(program: CascadeProgram, planes: UnsafePointer<Int32>, squares: UnsafePointer<UInt32>?,
                     scale: ScaleLevel, stride: Int, window: PixelSize) -> [Candidate] {
        let xCount = scale.width + 1 - window.width, yCount = scale.height + 1 - window.height
        guard xCount > 0, yCount > 0 else { return [] }
        let f = scale.factor
        let winW = roundEven(Float(window.width) * f), winH = roundEven(Float(window.height) * f)
        var found: [Candidate] = []
        program.stageCounts.withUnsafeBufferPointer { counts in
        program.stageThresholds.withUnsafeBufferPointer { thresholds in
        program.offsets.withUnsafeBufferPointer { offsets in
        program.params.withUnsafeBufferPointer { params in
        program.children.withUnsafeBufferPointer { children in
        program.leaves.withUnsafeBufferPointer { leaves in
        program.subsets.withUnsafeBufferPointer { subsets in
        program.weakNodes.withUnsafeBufferPointer { weakNodes in
        program.weakLeaves.withUnsafeBufferPointer { weakLeaves in
            let m = Machine(kind: program.kind, stageCount: counts.count, counts: counts.baseAddress!,
                            thresholds: thresholds.baseAddress!, offsets: offsets.baseAddress!,
                            params: params.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                            children: children.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                            leaves: leaves.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                            subsets: subsets.baseAddress ?? UnsafePointer(bitPattern: 8)!,
                            weakNodes: weakNodes.baseAddress!, weakLeaves: weakLeaves.baseAddress!,
                            norm: program.norm, normArea: program.normArea,
                            planes: planes, squares: squares)
            let step = scale.step
            var y = 0
            while y < yCount {
                var x = 0
                while x < xCount {
                    var margin = 0.0
                    let result = m.run(at: y * stride + x, margin: &margin)
                    if result > 0 {
                        found.append(Candidate(
                            rect: PixelRect(x: roundEven(Float(x) * f), y: roundEven(Float(y) * f), width: winW, height: winH),
                            margin: margin))
                    } else if result == 0 {
                        x += step
                    }
                    x += step
                }
                y += step
            }
        }}}}}}}}}
        return found
    }
}

/// The classifier evaluated at one window position. Plain pointers into the flattened program
/// and the integral planes: no bounds checks, reference counting or allocation per window.
/// Every offset was validated when the cascade was loaded (features lie inside the window) and
/// window positions are limited to the scaled image, so all reads stay in the planes.
struct Machine {
    let kind: CascadeProgram.Kind
    let stageCount: Int
    let counts: UnsafePointer<Int>
    let thresholds: UnsafePointer<Float>
    let offsets: UnsafePointer<Int>
    let params: UnsafePointer<Float>
    let children: UnsafePointer<Int>
    let leaves: UnsafePointer<Float>
    let subsets: UnsafePointer<UInt32>
    let weakNodes: UnsafePointer<Int>
    let weakLeaves: UnsafePointer<Int>
    let norm: (Int, Int, Int, Int)
    let normArea: Double
    let planes: UnsafePointer<Int32>
    let squares: UnsafePointer<UInt32>?

    /// 1 when every stage passes; -k when stage k rejects (0 for the first stage, which makes
    /// the scan skip the next position). Haar windows whose grey levels vary too little are
    /// refused before any stage, as OpenCV's setWindow refuses them: nf = A*Q - S^2 must be
    /// positive and A / sqrt(nf) below 0.1, i.e. a standard deviation above 10 grey levels.
    /// That refusal returns -1, which (like "stage 1 rejects") causes no skip.
    @inline(__always)
    func run(at position: Int, margin: inout Double) -> Int {
        let p = planes + position
        switch kind {
        case .haarStumps, .haarTrees:
            let q = squares.unsafelyUnwrapped + position
            let s = p[norm.0] &- p[norm.1] &- p[norm.2] &+ p[norm.3]
            let sq = q[norm.0] &- q[norm.1] &- q[norm.2] &+ q[norm.3]
            var nf = normArea * Double(Int(sq)) - Double(Int(s)) * Double(Int(s))
            guard nf > 0 else { return -1 }
            nf = nf.squareRoot()
            let scale = Float(1 / nf)
            guard normArea * Double(scale) < 0.1 else { return -1 }
            return kind == .haarStumps ? haarStumps(p, scale, &margin) : haarTrees(p, scale, &margin)
        case .lbpStumps:
            return lbpStumps(p, &margin)
        case .lbpTrees:
            return lbpTrees(p, &margin)
        }
    }

    @inline(__always)
    private func rectSum(_ p: UnsafePointer<Int32>, _ o: UnsafePointer<Int>) -> Float {
        // Through Int: the same value, but a direct conversion even in unoptimised builds.
        Float(Int(p[o[0]] &- p[o[1]] &- p[o[2]] &+ p[o[3]]))
    }

    /// The normalised Haar feature value, in OpenCV's single-precision order of operations.
    @inline(__always)
    private func haarValue(_ p: UnsafePointer<Int32>, _ o: UnsafePointer<Int>, _ w: UnsafePointer<Float>, _ scale: Float) -> Float {
        var v = w[0] * rectSum(p, o) + w[1] * rectSum(p, o + 4)
        if w[2] != 0 { v += w[2] * rectSum(p, o + 8) }
        return v * scale
    }

    @inline(__always)
    private func haarStumps(_ p: UnsafePointer<Int32>, _ scale: Float, _ margin: inout Double) -> Int {
        var o = offsets, w = params
        var sum = 0.0
        for stage in 0..<stageCount {
            sum = 0
            for _ in 0..<counts[stage] {
                let v = haarValue(p, o, w, scale)
                sum += Double(v < w[3] ? w[4] : w[5])
                o += 12
                w += 6
            }
            if sum < Double(thresholds[stage]) { return -stage }
        }
        margin = sum - Double(thresholds[stageCount - 1])
        return 1
    }

    @inline(__always)
    private func haarTrees(_ p: UnsafePointer<Int32>, _ scale: Float, _ margin: inout Double) -> Int {
        var weak = 0
        var sum = 0.0
        for stage in 0..<stageCount {
            sum = 0
            for _ in 0..<counts[stage] {
                let root = weakNodes[weak]
                var idx = 0
                repeat {
                    let node = root + idx
                    let v = haarValue(p, offsets + 12 * node, params + 4 * node, scale)
                    idx = v < params[4 * node + 3] ? children[2 * node] : children[2 * node + 1]
                } while idx > 0
                sum += Double(leaves[weakLeaves[weak] - idx])
                weak += 1
            }
            if sum < Double(thresholds[stage]) { return -stage }
        }
        margin = sum - Double(thresholds[stageCount - 1])
        return 1
    }

    /// The 8-bit LBP code of a 3x3 grid of cells: each outer cell sets its bit when its sum is
    /// at least the centre's; bits run clockwise from the top-left cell (128) to the left (1).
    @inline(__always)
    private func lbpCode(_ p: UnsafePointer<Int32>, _ o: UnsafePointer<Int>) -> Int {
        let v0 = p[o[0]], v1 = p[o[1]], v2 = p[o[2]], v3 = p[o[3]]
        let v4 = p[o[4]], v5 = p[o[5]], v6 = p[o[6]], v7 = p[o[7]]
        let v8 = p[o[8]], v9 = p[o[9]], v10 = p[o[10]], v11 = p[o[11]]
        let v12 = p[o[12]], v13 = p[o[13]], v14 = p[o[14]], v15 = p[o[15]]
        let centre = v5 &- v6 &- v9 &+ v10
        var code = 0
        if v0 &- v1 &- v4 &+ v5 >= centre { code |= 128 }
        if v1 &- v2 &- v5 &+ v6 >= centre { code |= 64 }
        if v2 &- v3 &- v6 &+ v7 >= centre { code |= 32 }
        if v6 &- v7 &- v10 &+ v11 >= centre { code |= 16 }
        if v10 &- v11 &- v14 &+ v15 >= centre { code |= 8 }
        if v9 &- v10 &- v13 &+ v14 >= centre { code |= 4 }
        if v8 &- v9 &- v12 &+ v13 >= centre { code |= 2 }
        if v4 &- v5 &- v8 &+ v9 >= centre { code |= 1 }
        return code
    }

    @inline(__always)
    private func inSubset(_ subset: UnsafePointer<UInt32>, _ code: Int) -> Bool {
        (subset[code >> 5] >> UInt32(code & 31)) & 1 != 0
    }

    @inline(__always)
    private func lbpStumps(_ p: UnsafePointer<Int32>, _ margin: inout Double) -> Int {
        var o = offsets, sub = subsets, leaf = leaves
        var sum = 0.0
        for stage in 0..<stageCount {
            sum = 0
            for _ in 0..<counts[stage] {
                let code = lbpCode(p, o)
                sum += Double(inSubset(sub, code) ? leaf[0] : leaf[1])
                o += 16
                sub += 8
                leaf += 2
            }
            if sum < Double(thresholds[stage]) { return -stage }
        }
        margin = sum - Double(thresholds[stageCount - 1])
        return 1
    }

    @inline(__always)
    private func lbpTrees(_ p: UnsafePointer<Int32>, _ margin: inout Double) -> Int {
        var weak = 0
        var sum = 0.0
        for stage in 0..<stageCount {
            sum = 0
            for _ in 0..<counts[stage] {
                let root = weakNodes[weak]
                var idx = 0
                repeat {
                    let node = root + idx
                    let code = lbpCode(p, offsets + 16 * node)
                    idx = inSubset(subsets + 8 * node, code) ? children[2 * node] : children[2 * node + 1]
                } while idx > 0
                sum += Double(leaves[weakLeaves[weak] - idx])
                weak += 1
            }
            if sum < Double(thresholds[stage]) { return -stage }
        }
        margin = sum - Double(thresholds[stageCount - 1])
        return 1
    }
}
