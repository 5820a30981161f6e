/// Whether Gloss believes the resolution an image file states. One rule for everything that
/// needs a page's real size: the resolution the reading tells Tesseract (`TextScale`) and the
/// size of a searchable PDF's page (`PDFPageSize`).
///
/// A stated resolution from 100 to 4800 ppi is believed. Below 100 it is a writer's
/// placeholder, not a scan's: 72 is what many writers store when they know none, 96 is a
/// screen's and many scanners' default. Measured on the Scribe benchmark's pages that state
/// 96: they read at 0.872 mean F1 told 96 and at 0.894 told 300 (`TextScale`). Above 4800 no
/// document scanner goes.
public enum StatedResolution {
    /// The resolutions believed, in pixels per inch.
    public static let believable = 100...4800

    /// The resolution when it is believed; nil for none, a placeholder or nonsense.
    public static func believed(_ stated: Int?) -> Int? {
        stated.flatMap { believable.contains($0) ? $0 : nil }
    }

    /// The same rule for a resolution that is not a whole number (a PNG's pixels per metre
    /// read back as 299.9994 ppi): taken to the nearest whole pixel per inch to be judged.
    public static func believed(_ stated: Double?) -> Double? {
        guard let stated, stated >= Double(believable.lowerBound) - 0.5, stated < Double(believable.upperBound) + 0.5 else { return nil }
        return stated
    }
}
