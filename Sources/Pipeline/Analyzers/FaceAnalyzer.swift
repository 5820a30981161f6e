import GlossContract
import GlossFaceDetection
import GlossImaging

/// Faces through OpenCV's cascades on a small copy: faces need far fewer pixels than text.
struct FaceAnalyzer: Analyzer {
    /// The longest side of the copy scanned; the scan's cost grows with its pixel count.
    let dimension: Int

    var name: String { "faces" }
    var image: ImageRequest { ImageRequest(longestSide: dimension) }

    func makeEngine() throws -> FaceDetector { try FaceDetector.standard() }

    func analyze(_ image: AnalyzerImage, with engine: FaceDetector, cancellation: CancellationFlag) throws -> PageFindings {
        PageFindings(faces: try engine.detect(in: image.raster))
    }
}
