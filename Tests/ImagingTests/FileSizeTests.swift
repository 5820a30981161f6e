import Foundation
import GlossGeometry
@testable import GlossImaging
import GlossTestSupport
import Testing

/// A file's bytes are bounded before they are read: by the largest file allowed, from its size
/// alone, and by what its header's pixels can justify (issue 16).
struct FileSizeTests {
    /// A PNG signature and header claiming `width` x `height`, then nothing up to `size` bytes: a
    /// sparse file, which costs no disk. (The header's CRC is left zero: no header reader checks it.)
    static func sparsePNG(width: Int, height: Int, bitDepth: UInt8 = 8, colourType: UInt8 = 0, size: Int) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-sparse-\(UUID().uuidString).png").path
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13) + Array("IHDR".utf8)
            + bigEndian(width) + bigEndian(height) + [bitDepth, colourType, 0, 0, 0] + bigEndian(0)
        try Data(header).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
        return path
    }

    /// Another program cuts a file short (an upload, an rsync rewriting it) after Gloss opened
    /// it: the page decodes from the bytes read, where a mapping's lost pages would have raised
    /// SIGBUS and ended the process.
    @Test func aFileCutShortAfterItIsOpenedDecodesAsItWasRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-cut-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.copyItem(atPath: Fixtures.path("text/sans.png"), toPath: path)
        let whole = try ImageFile(contentsOf: Fixtures.path("text/sans.png")).decodePage().raster
        let file = try ImageFile(contentsOf: path)
        #expect(truncate(path, 16) == 0)
        let page = try file.decodePage().raster
        #expect(page.size == whole.size && page.pixels == whole.pixels)
        var hashed = 0
        try file.forEachChunk { hashed += $0.count }
        #expect(hashed == file.byteCount && file.byteCount > 16)
    }

    @Test func aFileFarLargerThanItsHeaderJustifiesIsRefusedBeforeItIsRead() throws {
        let path = try Self.sparsePNG(width: 1000, height: 1000, size: 1 << 30)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let started = ContinuousClock.now
        let error = try #require(throws: ImagingError.self) { try ImageFile(contentsOf: path) }
        #expect(ContinuousClock.now - started < .seconds(2), "refused from the header, not after reading 1 GiB")
        let justified = 1000 * 1000 * 2 + ImageFile.metadataAllowance
        #expect(error == ImagingError(path: path, reason: .unjustifiedSize(fileSize: 1 << 30, width: 1000, height: 1000,
                                                                          justified: justified)))
        #expect(error.description.contains("the file is 1073741824 bytes, more than a 1000x1000 image can justify (at most \(justified))"))
    }

    @Test func aFileAboveTheLargestAllowedIsRefusedFromItsSize() throws {
        let size = ImageFile.defaultMaxFileSize + 1
        let path = try Self.sparsePNG(width: 20000, height: 20000, bitDepth: 16, colourType: 6, size: size)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ImagingError(path: path, reason: .fileTooLarge(size: size, limit: ImageFile.defaultMaxFileSize))) {
            try ImageFile(contentsOf: path, pixelLimit: 400_000_000)
        }
        let small = Fixtures.path("text/sans.png")
        let error = try #require(throws: ImagingError.self) { try ImageFile(contentsOf: small, maxFileSize: 1000) }
        #expect(error.description.hasSuffix("above the limit of 1000 (see --max-file-size)"), "\(error)")
    }

    @Test func bytesInMemoryAreBoundedAlike() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("text/sans.png"))))
        #expect(throws: ImagingError(path: "download", reason: .fileTooLarge(size: bytes.count, limit: 1000))) {
            try ImageFile(bytes: bytes, path: "download", maxFileSize: 1000)
        }
        var padded = bytes
        padded += [UInt8](repeating: 0, count: 960 * 528 * 8 * 2 + ImageFile.metadataAllowance)
        #expect(throws: ImagingError.self) { try ImageFile(bytes: padded, path: "download") }
    }

    /// A local TIFF is read by libtiff from the file itself; bytes in memory from a copy.
    @Test func aTIFFInMemoryReadsLikeItsFile() throws {
        let path = Fixtures.path("text/two-pages.tif")
        let file = try ImageFile(contentsOf: path)
        let copy = try ImageFile(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        #expect(file.pageCount == 2 && copy.pageCount == 2)
        for page in 0..<2 { #expect(try file.decodePage(page).raster == copy.decodePage(page).raster) }
    }

    @Test(arguments: ["text/sans.png", "text/two-pages.tif", "text/upright.jpg"])
    func theBytesAreHandedOutInChunksOfTheSizeAsked(fixture: String) throws {
        let path = Fixtures.path(fixture)
        let file = try ImageFile(contentsOf: path)
        var chunks: [[UInt8]] = []
        try file.forEachChunk(ofSize: 4096) { chunks.append(Array($0)) }
        #expect(chunks.dropLast().allSatisfy { $0.count == 4096 } && chunks.last!.count <= 4096)
        #expect(chunks.flatMap { $0 } == Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(file.byteCount == chunks.reduce(0) { $0 + $1.count })
    }
}
