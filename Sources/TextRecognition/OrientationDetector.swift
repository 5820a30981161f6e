import CMalloc
import CTesseract
import GlossImaging

/// Which way up a page's text stands, as Tesseract's orientation and script detection reads it.
public struct OrientationEstimate: Sendable, Equatable {
    /// Degrees to turn the page clockwise so its text stands upright: 0, 90, 180 or 270.
    public var rotation: Int
    /// Tesseract's confidence in `rotation`: how far the best orientation stands above the
    /// next, on its own scale (measured on real pages: wrong answers reached 7.1, right ones
    /// mostly 8 to 35).
    public var confidence: Double
    /// The script the letters were read as (`Latin`, `Cyrillic`), when Tesseract names one.
    public var script: String?

    public init(rotation: Int, confidence: Double, script: String? = nil) {
        self.rotation = rotation
        self.confidence = confidence
        self.script = script
    }
}

/// Tesseract's orientation detector (the `osd` model), loaded once and asked page after page.
///
/// A second engine beside the recogniser: loading costs about half a second, and asking about
/// half a second for an A4 page at 300 ppi, so a worker builds one, keeps it, and asks only
/// about pages whose direction the cheap signals leave in doubt. Not `Sendable`, like
/// `TextRecognizer`: one engine serves one thread.
public final class OrientationDetector {
    private let engine: OpaquePointer

    /// Loads `osd.traineddata` from `dataPath`, or from where the recogniser looks for models.
    public init(dataPath: String? = nil) throws {
        let folder = try TextRecognizer.modelFolder(for: RecognitionOptions(languages: ["osd"], dataPath: dataPath))
        guard let engine = TessBaseAPICreate() else {
            throw TextRecognitionError(.engineFailed("cannot create an orientation engine"))
        }
        self.engine = engine
        let loaded = tesseractSetUp.withLock { _ in
            TessBaseAPISetVariable(engine, "debug_file", "/dev/null")
            return TessBaseAPIInit3(engine, folder, "osd") == 0
        }
        guard loaded else {
            throw TextRecognitionError(.engineFailed("cannot load the orientation model from \(folder)"))
        }
        TessBaseAPISetPageSegMode(engine, PSM_OSD_ONLY)
    }

    deinit {
        TessBaseAPIEnd(engine)
        TessBaseAPIDelete(engine)
        // The model lies in some 10,000 small blocks (about 30 MB: its classes' templates),
        // which glibc keeps for the thread that freed them; their pages go back to the system
        // here, so that a worker that builds the detector for a page is not left the larger.
        malloc_trim(0)
    }

    /// The orientation of the text of `image` (grey or colour) at `resolution` pixels per
    /// inch; nil when Tesseract finds too few letters to say.
    public func detect(_ image: Raster, resolution: Int?) -> OrientationEstimate? {
        let grey = image.grayscale()
        guard grey.width >= TextRecognizer.smallestLegibleSide, grey.height >= TextRecognizer.smallestLegibleSide else { return nil }
        OpenMP.runSingleThreadedOnThisThread()
        grey.pixels.withUnsafeBufferPointer { pixels in
            TessBaseAPISetImage(engine, pixels.baseAddress, Int32(grey.width), Int32(grey.height), 1, Int32(grey.width))
        }
        TessBaseAPISetSourceResolution(engine, Int32(RecognitionOptions.effectiveResolution(resolution)))
        defer { TessBaseAPIClear(engine) }
        var degrees: Int32 = 0, confidence: Float = 0, scriptConfidence: Float = 0
        var scriptName: UnsafePointer<CChar>?
        guard TessBaseAPIDetectOrientationScript(engine, &degrees, &confidence, &scriptName, &scriptConfidence) != 0 else {
            return nil
        }
        // Tesseract names the clockwise turn the text has; undoing it is the turn the other way.
        let rotation = (360 - Int(degrees) % 360) % 360
        return OrientationEstimate(rotation: rotation, confidence: Double(confidence), script: scriptName.map { String(cString: $0) })
    }
}
