import GlossGeometry
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A boosted cascade of Haar or LBP features, as trained by OpenCV, ready to evaluate.
///
/// Loaded once from OpenCV's XML, validated (every index and every rectangle is checked
/// against the window, so the scanning loop can read without bounds checks), and stored in
/// flat arrays: an immutable value that any number of detectors and tasks can share.
public struct Cascade: Sendable {
    /// The kind of feature every weak classifier looks at.
    public enum FeatureType: String, Sendable {
        /// Sums of 2-3 weighted rectangles, normalised by the window's standard deviation.
        case haar = "HAAR"
        /// 8-bit local binary pattern codes of a 3x3 grid of cells.
        case lbp = "LBP"
    }

    /// Where the cascade came from (a file path), used in messages.
    public let source: String
    public let featureType: FeatureType
    /// The detection window the cascade was trained on; the image is scaled, the window never.
    public let windowSize: PixelSize
    /// True when some Haar feature is rotated by 45 degrees (needs the tilted integral image).
    public let usesTiltedFeatures: Bool
    /// The largest number of internal nodes in one weak classifier (1 = stumps).
    public let maxNodesPerTree: Int

    public var stageCount: Int { stages.count }
    public var weakClassifierCount: Int { weaks.count }
    public var isStumpBased: Bool { maxNodesPerTree == 1 }

    struct Stage: Sendable {
        var firstWeak: Int
        var weakCount: Int
        /// Already lowered by OpenCV's 1e-5 tolerance, in single precision as OpenCV keeps it.
        var threshold: Float
    }

    struct Weak: Sendable {
        var firstNode: Int
        var nodeCount: Int
        var firstLeaf: Int
    }

    /// An internal node. `left`/`right` > 0 index a node of the same tree, <= 0 a leaf (-value).
    struct Node: Sendable {
        var feature: Int32
        var threshold: Float
        var left: Int32
        var right: Int32
    }

    struct HaarRect: Sendable {
        var x: Int32, y: Int32, width: Int32, height: Int32
        var weight: Float
    }

    struct HaarFeature: Sendable {
        var rects: [HaarRect]
        var tilted: Bool
    }

    /// One cell of the 3x3 grid; the feature spans 3 `width` x 3 `height`.
    struct LBPFeature: Sendable {
        var x: Int32, y: Int32, width: Int32, height: Int32
    }

    let stages: [Stage]
    let weaks: [Weak]
    let nodes: [Node]
    let leaves: [Float]
    /// 8 words per node for LBP cascades (bit c of the 256-bit mask: word c>>5, bit c&31).
    let subsets: [UInt32]
    let haarFeatures: [HaarFeature]
    let lbpFeatures: [LBPFeature]
}

// MARK: - Loading

extension Cascade {
    /// Loads a cascade in OpenCV's XML format (`<opencv_storage><cascade>`).
    ///
    /// - Throws: `CascadeError` naming `path` and the offending element.
    public init(contentsOfFile path: String) throws(CascadeError) {
        let bytes = try Cascade.readFile(path)
        try self.init(xml: bytes, source: path)
    }

    /// Parses a cascade from XML bytes; `source` names it in errors.
    public init(xml bytes: [UInt8], source: String) throws(CascadeError) {
        let root: XMLNode
        do {
            root = try XMLReader.parse(bytes)
        } catch {
            let element = error.path.isEmpty ? "(document)" : error.path.joined(separator: "/")
            throw CascadeError(file: source, element: element, reason: .malformedXML(error.message))
        }
        let reader = CascadeReader(source: source)
        self = try reader.read(root)
    }

    static func readFile(_ path: String) throws(CascadeError) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw CascadeError(file: path, element: "(file)", reason: .unreadable(String(cString: strerror(errno))))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count {
                if ferror(file) != 0 {
                    throw CascadeError(file: path, element: "(file)", reason: .unreadable("read error"))
                }
                break
            }
        }
        return bytes
    }
}

/// Turns the XML tree into a validated `Cascade`.
private struct CascadeReader {
    let source: String

    func error(_ path: String, _ reason: CascadeError.Reason) -> CascadeError {
        CascadeError(file: source, element: path, reason: reason)
    }

    func required(_ node: XMLNode, _ name: String, at path: String) throws(CascadeError) -> XMLNode {
        guard let child = node.child(name) else { throw error(path, .missingElement(name)) }
        return child
    }

    /// Whitespace-separated numbers of an element's text, read with strtod in the C locale
    /// (correctly rounded, as OpenCV reads them, and immune to a process-wide setlocale).
    func numbers(_ node: XMLNode, at path: String) throws(CascadeError) -> [Double] {
        var text = node.text
        text.append(0)
        var values: [Double] = []
        // strtod follows the thread's locale: pin the C locale for this thread meanwhile.
        let previous = uselocale(cLocale)
        defer { uselocale(previous) }
        let bad: String? = text.withUnsafeMutableBufferPointer { buffer -> String? in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var cursor = base
            while true {
                while cursor.pointee == 0x20 || cursor.pointee == 0x0A || cursor.pointee == 0x0D || cursor.pointee == 0x09 {
                    cursor += 1
                }
                if cursor.pointee == 0 { return nil }
                var end: UnsafeMutablePointer<CChar>? = cursor
                let value = strtod(cursor, &end)
                guard let stop = end, stop != cursor, value.isFinite,
                      stop.pointee == 0 || stop.pointee == 0x20 || stop.pointee == 0x0A || stop.pointee == 0x0D || stop.pointee == 0x09
                else {
                    var token: [UInt8] = []
                    while cursor.pointee != 0 && cursor.pointee != 0x20 && cursor.pointee != 0x0A && token.count < 40 {
                        token.append(UInt8(bitPattern: cursor.pointee))
                        cursor += 1
                    }
                    return String(decoding: token, as: UTF8.self)
                }
                values.append(value)
                cursor = stop
            }
        }
        if let bad { throw error(path, .invalidValue("not a number: \(bad)")) }
        return values
    }

    func integer(_ value: Double, at path: String) throws(CascadeError) -> Int32 {
        guard value == value.rounded(), value >= Double(Int32.min), value <= Double(Int32.max) else {
            throw error(path, .invalidValue("\(value) is not a 32-bit integer"))
        }
        return Int32(value)
    }

    func scalar(_ node: XMLNode, _ name: String, at path: String) throws(CascadeError) -> Double {
        let child = try required(node, name, at: path)
        let values = try numbers(child, at: path + "/" + name)
        guard values.count == 1 else { throw error(path + "/" + name, .invalidValue("expected one number, found \(values.count)")) }
        return values[0]
    }

    func word(_ node: XMLNode, _ name: String, at path: String) throws(CascadeError) -> String {
        let child = try required(node, name, at: path)
        return child.textString.filter { !$0.isWhitespace }
    }

    /// The window, feature type and category count: what every feature and node is checked against.
    struct Header {
        var featureType: Cascade.FeatureType
        var width: Int32
        var height: Int32
        var categories: Int32

        var subsetWords: Int { (Int(categories) + 31) / 32 }
        /// Numbers per internal node: left, right, feature, then a threshold or a category subset.
        var nodeStep: Int { 3 + (categories > 0 ? subsetWords : 1) }
    }

    struct Features {
        var haar: [Cascade.HaarFeature] = []
        var lbp: [Cascade.LBPFeature] = []
        var tilted = false
        var count: Int { haar.count + lbp.count }
    }

    struct Trees {
        var stages: [Cascade.Stage] = []
        var weaks: [Cascade.Weak] = []
        var nodes: [Cascade.Node] = []
        var leaves: [Float] = []
        var subsets: [UInt32] = []
        var maxNodes = 0
    }

    func read(_ root: XMLNode) throws(CascadeError) -> Cascade {
        guard root.name == "opencv_storage" else {
            throw error(root.name, .unsupported("document element is <\(root.name)>, not <opencv_storage>"))
        }
        guard let top = root.children.first else { throw error(root.name, .missingElement("cascade")) }
        let base = root.name + "/" + top.name
        let header = try readHeader(top, at: base)
        // Features first, so that stages can check their indices.
        let features = try readFeatures(top, header, at: base)
        let trees = try readStages(top, header, featureCount: features.count, at: base)
        return Cascade(
            source: source, featureType: header.featureType,
            windowSize: PixelSize(width: Int(header.width), height: Int(header.height)),
            usesTiltedFeatures: features.tilted, maxNodesPerTree: trees.maxNodes,
            stages: trees.stages, weaks: trees.weaks, nodes: trees.nodes, leaves: trees.leaves, subsets: trees.subsets,
            haarFeatures: features.haar, lbpFeatures: features.lbp)
    }

    private func readHeader(_ top: XMLNode, at base: String) throws(CascadeError) -> Header {
        if top.child("stageType") == nil {
            if top.attributes["type_id"] == "opencv-haar-classifier" || top.child("size") != nil {
                throw error(base, .unsupported("old-format Haar classifier (opencv-haar-classifier); convert it with opencv_traincascade"))
            }
            throw error(base, .missingElement("stageType"))
        }
        let stageType = try word(top, "stageType", at: base)
        guard stageType == "BOOST" else { throw error(base + "/stageType", .unsupported("stage type \(stageType)")) }
        let featureName = try word(top, "featureType", at: base)
        guard let featureType = Cascade.FeatureType(rawValue: featureName) else {
            if featureName == "HOG" { throw error(base + "/featureType", .unsupported("HOG cascades")) }
            throw error(base + "/featureType", .invalidValue("feature type \(featureName)"))
        }
        let width = try integer(try scalar(top, "width", at: base), at: base + "/width")
        let height = try integer(try scalar(top, "height", at: base), at: base + "/height")
        guard width > 2, height > 2, width <= 4096, height <= 4096 else {
            throw error(base + "/width", .invalidValue("window \(width)x\(height)"))
        }
        let featureParams = try required(top, "featureParams", at: base)
        let categories = try integer(try scalar(featureParams, "maxCatCount", at: base + "/featureParams"),
                                     at: base + "/featureParams/maxCatCount")
        switch featureType {
        case .haar where categories != 0:
            throw error(base + "/featureParams/maxCatCount", .unsupported("Haar cascade with \(categories) categories"))
        case .lbp where categories != 256:
            throw error(base + "/featureParams/maxCatCount", .unsupported("LBP cascade with \(categories) categories (expected 256)"))
        default: break
        }
        return Header(featureType: featureType, width: width, height: height, categories: categories)
    }

    private func readFeatures(_ top: XMLNode, _ header: Header, at base: String) throws(CascadeError) -> Features {
        let featuresPath = base + "/features"
        let featuresNode = try required(top, "features", at: base)
        var features = Features()
        for (fi, f) in featuresNode.children.enumerated() {
            let path = featuresPath + "/_[\(fi)]"
            switch header.featureType {
            case .haar:
                let feature = try readHaarFeature(f, header, at: path)
                features.tilted = features.tilted || feature.tilted
                features.haar.append(feature)
            case .lbp:
                features.lbp.append(try readLBPFeature(f, header, at: path))
            }
        }
        guard features.count > 0 else { throw error(featuresPath, .missingElement("_")) }
        return features
    }

    private func readHaarFeature(_ f: XMLNode, _ header: Header, at path: String) throws(CascadeError) -> Cascade.HaarFeature {
        let (width, height) = (Int(header.width), Int(header.height))
        let rectsNode = try required(f, "rects", at: path)
        guard (1...3).contains(rectsNode.children.count) else {
            throw error(path + "/rects", .invalidValue("\(rectsNode.children.count) rectangles (expected 1 to 3)"))
        }
        let isTilted = try f.child("tilted").map { (t) throws(CascadeError) -> Bool in
            let v = try numbers(t, at: path + "/tilted")
            guard v.count == 1 else { throw error(path + "/tilted", .invalidValue("expected 0 or 1")) }
            return v[0] != 0
        } ?? false
        var rects: [Cascade.HaarRect] = []
        for (ri, r) in rectsNode.children.enumerated() {
            let rpath = path + "/rects/_[\(ri)]"
            let v = try numbers(r, at: rpath)
            guard v.count == 5 else { throw error(rpath, .invalidValue("expected x y w h weight, found \(v.count) numbers")) }
            let rect = Cascade.HaarRect(
                x: try integer(v[0], at: rpath), y: try integer(v[1], at: rpath),
                width: try integer(v[2], at: rpath), height: try integer(v[3], at: rpath),
                weight: Float(v[4]))
            // In Int: 32-bit values from the file must not overflow while being checked.
            let (x, y, w, h) = (Int(rect.x), Int(rect.y), Int(rect.width), Int(rect.height))
            let inside: Bool
            if isTilted {
                inside = w >= 0 && h >= 0 && y >= 0 && x - h >= 0 && x + w <= width && y + w + h <= height
            } else {
                inside = w >= 0 && h >= 0 && x >= 0 && y >= 0 && x + w <= width && y + h <= height
            }
            guard inside else { throw error(rpath, .invalidValue("rectangle outside the \(width)x\(height) window")) }
            rects.append(rect)
        }
        return Cascade.HaarFeature(rects: rects, tilted: isTilted)
    }

    private func readLBPFeature(_ f: XMLNode, _ header: Header, at path: String) throws(CascadeError) -> Cascade.LBPFeature {
        let rpath = path + "/rect"
        let v = try numbers(try required(f, "rect", at: path), at: rpath)
        guard v.count == 4 else { throw error(rpath, .invalidValue("expected x y w h, found \(v.count) numbers")) }
        let cell = Cascade.LBPFeature(x: try integer(v[0], at: rpath), y: try integer(v[1], at: rpath),
                                      width: try integer(v[2], at: rpath), height: try integer(v[3], at: rpath))
        guard cell.x >= 0, cell.y >= 0, cell.width > 0, cell.height > 0,
              Int(cell.x) + 3 * Int(cell.width) <= Int(header.width),
              Int(cell.y) + 3 * Int(cell.height) <= Int(header.height) else {
            throw error(rpath, .invalidValue("cell grid outside the \(header.width)x\(header.height) window"))
        }
        return cell
    }

    /// Stages and their weak classifiers: trees of nodes, flattened into shared arrays.
    private func readStages(_ top: XMLNode, _ header: Header, featureCount: Int, at base: String) throws(CascadeError) -> Trees {
        let stagesPath = base + "/stages"
        let stagesNode = try required(top, "stages", at: base)
        guard !stagesNode.children.isEmpty else { throw error(stagesPath, .missingElement("_")) }
        var trees = Trees()
        for (si, s) in stagesNode.children.enumerated() {
            let spath = stagesPath + "/_[\(si)]"
            let threshold = Float(try scalar(s, "stageThreshold", at: spath)) - Float(1e-5)
            let weakNode = try required(s, "weakClassifiers", at: spath)
            guard !weakNode.children.isEmpty else { throw error(spath + "/weakClassifiers", .missingElement("_")) }
            trees.stages.append(Cascade.Stage(firstWeak: trees.weaks.count, weakCount: weakNode.children.count, threshold: threshold))
            for (wi, w) in weakNode.children.enumerated() {
                try readTree(w, header, featureCount: featureCount, into: &trees, at: spath + "/weakClassifiers/_[\(wi)]")
            }
        }
        return trees
    }

    private func readTree(_ w: XMLNode, _ header: Header, featureCount: Int, into trees: inout Trees,
                          at wpath: String) throws(CascadeError) {
        let npath = wpath + "/internalNodes"
        let lpath = wpath + "/leafValues"
        let nodeStep = header.nodeStep
        let raw = try numbers(try required(w, "internalNodes", at: wpath), at: npath)
        let leafValues = try numbers(try required(w, "leafValues", at: wpath), at: lpath)
        guard !raw.isEmpty, raw.count % nodeStep == 0 else {
            throw error(npath, .invalidValue("\(raw.count) numbers is not a multiple of \(nodeStep)"))
        }
        let nodeCount = raw.count / nodeStep
        guard leafValues.count == nodeCount + 1 else {
            throw error(lpath, .invalidValue("\(leafValues.count) leaves for \(nodeCount) nodes"))
        }
        trees.weaks.append(Cascade.Weak(firstNode: trees.nodes.count, nodeCount: nodeCount, firstLeaf: trees.leaves.count))
        trees.maxNodes = max(trees.maxNodes, nodeCount)
        for n in 0..<nodeCount {
            let k = n * nodeStep
            let left = try integer(raw[k], at: npath), right = try integer(raw[k + 1], at: npath)
            let feature = try integer(raw[k + 2], at: npath)
            guard feature >= 0, Int(feature) < featureCount else {
                throw error(npath, .invalidValue("feature index \(feature) of \(featureCount)"))
            }
            for child in [left, right] {
                // A child node must come later in the tree (no cycles); a leaf must exist.
                let ok = child > 0 ? (Int(child) > n && Int(child) < nodeCount) : (-Int(child) <= nodeCount)
                guard ok else { throw error(npath, .invalidValue("child \(child) of node \(n) in a tree of \(nodeCount)")) }
            }
            var threshold: Float = 0
            if header.categories > 0 {
                for j in 0..<header.subsetWords {
                    trees.subsets.append(UInt32(bitPattern: try integer(raw[k + 3 + j], at: npath)))
                }
            } else {
                threshold = Float(raw[k + 3])
            }
            trees.nodes.append(Cascade.Node(feature: feature, threshold: threshold, left: left, right: right))
        }
        trees.leaves.append(contentsOf: leafValues.map { Float($0) })
    }
}

// MARK: - The cascades Debian ships

extension Cascade {
    /// Where Debian's `opencv-data` installs the trained cascades.
    public static let systemDirectory = "/usr/share/opencv4"

    /// The new-format cascades in Debian's `opencv-data`, named so callers need no paths.
    ///
    /// (`haarcascade_licence_plate_rus_16stages.xml` is left out: it is in the old format,
    /// which OpenCV evaluates with a different, feature-scaling algorithm.)
    public enum Known: String, CaseIterable, Sendable {
        case frontalFaceDefault = "haarcascades/haarcascade_frontalface_default.xml"
        case frontalFaceAlt = "haarcascades/haarcascade_frontalface_alt.xml"
        case frontalFaceAlt2 = "haarcascades/haarcascade_frontalface_alt2.xml"
        case frontalFaceAltTree = "haarcascades/haarcascade_frontalface_alt_tree.xml"
        case profileFace = "haarcascades/haarcascade_profileface.xml"
        case eye = "haarcascades/haarcascade_eye.xml"
        case eyeTreeEyeglasses = "haarcascades/haarcascade_eye_tree_eyeglasses.xml"
        case leftEye2Splits = "haarcascades/haarcascade_lefteye_2splits.xml"
        case rightEye2Splits = "haarcascades/haarcascade_righteye_2splits.xml"
        case smile = "haarcascades/haarcascade_smile.xml"
        case fullBody = "haarcascades/haarcascade_fullbody.xml"
        case upperBody = "haarcascades/haarcascade_upperbody.xml"
        case lowerBody = "haarcascades/haarcascade_lowerbody.xml"
        case frontalCatFace = "haarcascades/haarcascade_frontalcatface.xml"
        case frontalCatFaceExtended = "haarcascades/haarcascade_frontalcatface_extended.xml"
        case russianPlateNumber = "haarcascades/haarcascade_russian_plate_number.xml"
        case lbpFrontalFace = "lbpcascades/lbpcascade_frontalface.xml"
        case lbpFrontalFaceImproved = "lbpcascades/lbpcascade_frontalface_improved.xml"
        case lbpProfileFace = "lbpcascades/lbpcascade_profileface.xml"
        case lbpFrontalCatFace = "lbpcascades/lbpcascade_frontalcatface.xml"
        case lbpSilverware = "lbpcascades/lbpcascade_silverware.xml"

        /// The absolute path of the file.
        public var path: String { Cascade.systemDirectory + "/" + rawValue }
    }

    /// The cascade `known`, parsed once per process and then shared.
    ///
    /// Parsing the larger files takes tens of milliseconds; detectors built per request
    /// should not pay it again.
    public static func load(_ known: Known) throws(CascadeError) -> Cascade {
        if let cached = knownCache.withLock({ $0[known] }) { return cached }
        let cascade = try Cascade(contentsOfFile: known.path)
        knownCache.withLock { $0[known] = cascade }
        return cascade
    }
}

private let knownCache = Mutex<[Cascade.Known: Cascade]>([:])

/// The "C" locale for number parsing. Created once and never freed or changed, so sharing the
/// handle between threads is safe.
nonisolated(unsafe) private let cLocale = newlocale(Int32(1 << LC_NUMERIC), "C", nil)
