// gloss-render: draws one PDF page, or reads its text, for Gloss, which starts it beside itself
// for every page and kills it when the page is cancelled (see Sources/Imaging/PDFRenderProcess.swift).
import GlossImaging
#if canImport(Glibc)
import Glibc
#endif

/// Cairo's own `cairo_image_surface_create`, the next one after this executable's.
private enum Cairo {
    typealias Create = @convention(c) (Int32, Int32, Int32) -> OpaquePointer?

    static let create: Create? = dlsym(UnsafeMutableRawPointer(bitPattern: -1), "cairo_image_surface_create")
        .map { unsafeBitCast($0, to: Create.self) }
}

/// Stands in for Cairo's function of the same name, which Poppler calls for every image it
/// draws, with the size the image declares, before decoding it: a size `SurfaceGate` refuses
/// gets an invalid size, which Cairo answers with an error surface and Poppler skips.
@_cdecl("cairo_image_surface_create")
public func imageSurfaceCreate(_ format: Int32, _ width: Int32, _ height: Int32) -> OpaquePointer? {
    guard let create = Cairo.create else { return nil }
    return SurfaceGate.shared.admits(width: width, height: height) ? create(format, width, height) : create(format, -1, -1)
}

exit(PDFPageService.main(CommandLine.arguments))
