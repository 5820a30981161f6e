import GlossContract
import GlossFaceDetection
import GlossImaging
import GlossModels

/// Which detector finds faces (`--faces`).
public enum FaceDetectorKind: String, Sendable, Codable, Hashable, CaseIterable {
    /// YuNet, a CNN: the default.
    case cnn
    /// OpenCV's Haar cascades, as Gloss had before the CNN.
    case cascade

    /// The longest side of the copy each scans unless `--face-size` says otherwise, measured
    /// (docs/faces.md): the CNN's cost grows with the pixels it reads, the cascade's more so.
    public var defaultDimension: Int {
        switch self {
        case .cnn: 640
        case .cascade: 1024
        }
    }
}

/// Faces through YuNet on a small copy; with `checksSmiles`, the smile cascade runs inside each
/// face's mouth region for `hasSmile` (false otherwise).
struct CNNFaceAnalyzer: Analyzer {
    let dimension: Int
    /// A model file to load instead of the built-in one.
    var modelPath: String?
    /// Whether each face is looked at for a smile (`--smiles`).
    var checksSmiles = false
    var options = YuNetDetector.Options()

    final class Engine {
        let network: YuNetDetector
        /// The smile cascade, when smiles are looked for.
        let smiles: FaceDetector?

        init(network: YuNetDetector, smiles: FaceDetector?) {
            self.network = network
            self.smiles = smiles
        }
    }

    var name: String { "faces" }
    var image: ImageRequest { ImageRequest(longestSide: dimension) }
    /// A model that cannot be loaded leaves the batch reading text.
    var isOptional: Bool { true }

    func makeEngine() throws -> Engine {
        Engine(network: try YuNetDetector.loaded(from: modelPath, options: options),
               smiles: checksSmiles ? try FaceDetector.standard() : nil)
    }

    func analyze(_ image: AnalyzerImage, with engine: Engine, cancellation: CancellationFlag) throws -> PageFindings {
        let clock = ContinuousClock()
        let start = clock.now
        var faces = try engine.network.detect(in: image.raster)
        var findings = PageFindings()
        // The stage's parts, beside its own time: the network, then what is done per face.
        findings.timings.record("face-network", clock.now - start)
        guard !faces.isEmpty, let smileFinder = engine.smiles else {
            findings.faces = faces
            return findings
        }
        let smiles = clock.now
        let grey = image.raster.grayscale()
        for index in faces.indices {
            faces[index].hasSmile = try smileFinder.smiles(in: grey, within: faces[index].box)
        }
        findings.timings.record("face-smiles", clock.now - smiles)
        findings.faces = faces
        return findings
    }
}

/// Faces through OpenCV's cascades, then eyes, mouth and smile inside them.
struct CascadeFaceAnalyzer: Analyzer {
    let dimension: Int

    var name: String { "faces" }
    var image: ImageRequest { ImageRequest(longestSide: dimension) }
    var isOptional: Bool { true }

    func makeEngine() throws -> FaceDetector { try FaceDetector.standard() }

    func analyze(_ image: AnalyzerImage, with engine: FaceDetector, cancellation: CancellationFlag) throws -> PageFindings {
        PageFindings(faces: try engine.detect(in: image.raster))
    }
}
