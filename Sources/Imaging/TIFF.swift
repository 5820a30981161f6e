import CLeptonica
import GlossGeometry
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TIFF's pages through Leptonica, read from a file descriptor.
///
/// Leptonica's in-memory TIFF reader prints some of its complaints straight to stderr ("Bad
/// file: amount too big"), and it already silences libtiff's own. Given a real file, only
/// libtiff reads it, and nothing is printed: the file itself for a local input, an anonymous
/// temporary copy for bytes in memory (a download). Every page is read from that one stream (a
/// FILE has one position, so reads take turns). The directory chain is also walked by Gloss
/// itself, once, bounds-checked, so that a page whose directory is cut off is reported as a
/// failed page rather than silently dropped.
final class TIFFFile: @unchecked Sendable {
    // `@unchecked`: the stream is only used while holding `turn`; the rest is immutable.
    private let bytes: EncodedBytes
    private let file: TIFFStream
    /// Readers take turns with the stream's one position.
    private let turn = Mutex(())
    private let chain: TIFFDirectoryChain

    /// More pages than any bound volume: past this, a file is taken to be hostile (libtiff
    /// finds each page's directory by walking the chain, so the cost grows with the square).
    static let maximumPages = 10_000

    init(_ bytes: EncodedBytes, path: String) throws {
        let stream = switch bytes {
        case .file(let file): TIFFStream(descriptor: file.descriptor)
        case .memory(let array): TIFFStream(copying: array)
        }
        guard let stream else {
            throw ImagingError(path: path, reason: .unreadable("no stream to read the TIFF from: " + systemError()))
        }
        self.bytes = bytes
        file = stream
        chain = bytes.withUnsafeBytes { TIFFDirectoryChain($0) }
    }

    private func withStream<T>(_ body: (UnsafeMutablePointer<FILE>) -> T) -> T {
        turn.withLock { _ in
            rewind(file.stream)
            return body(file.stream)
        }
    }

    /// The first page's size, from its header.
    var size: PixelSize? {
        var width: Int32 = 0, height: Int32 = 0, bits: Int32 = 0, samples: Int32 = 0
        var resolution: Int32 = 0, colormapped: Int32 = 0, format: Int32 = 0
        let status = withStream { freadHeaderTiff($0, 0, &width, &height, &bits, &samples, &resolution, &colormapped, &format) }
        return status == 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
    }

    /// Width and height as page `index`'s directory states them, read by Gloss with bounds
    /// checks (Leptonica's `freadHeaderTiff` leaks libtiff's handle when a later directory is
    /// damaged), or nil when the directory or the tags are missing.
    func size(ofPage index: Int) -> PixelSize? {
        bytes.withUnsafeBytes { bytes in
            guard let tiff = TIFFBytes(bytes), let directory = tiff.directory(index),
                  let width = tiff.value(ofTag: 256, inDirectoryAt: directory),
                  let height = tiff.value(ofTag: 257, inDirectoryAt: directory) else { return nil }
            // LONG values can reach 2^32 - 1: clamped, so that width x height cannot overflow.
            return PixelSize(width: min(width, Int(Int32.max)), height: min(height, Int(Int32.max)))
        }
    }

    /// Pages that can be read, plus one for a directory the chain points to but the file cuts
    /// off (decoding that page then fails with the reason).
    var pageCount: Int {
        var count: Int32 = 0
        let readable = withStream { tiffGetCount($0, &count) } == 0 ? Int(count) : 0
        return min(Self.maximumPages, max(1, readable, chain.complete + (chain.brokenLink ? 1 : 0)))
    }

    /// Page `index` as Leptonica decodes it, or why not.
    func decode(page index: Int) -> (LeptonicaImage?, problem: String?) {
        if chain.brokenLink, index == chain.complete {
            return (nil, "page \(index + 1)'s directory lies beyond the end of the file (truncated?)")
        }
        let image = withStream { LeptonicaImage(pixReadStreamTiff($0, Int32(index))) }
        return (image, image == nil ? "page \(index + 1)'s pixels cannot be read (truncated or damaged)" : nil)
    }
}

/// The image directories of a TIFF, followed from the header through each "next" offset.
struct TIFFDirectoryChain {
    /// Directories whose entries lie inside the file.
    var complete = 0
    /// The last offset followed pointed outside the file.
    var brokenLink = false

    init(_ bytes: UnsafeRawBufferPointer) {
        guard let tiff = TIFFBytes(bytes), var next = tiff.firstDirectory else { return }
        var seen = Set<Int>()
        while next != 0 {
            guard seen.insert(next).inserted, seen.count <= 65_536 else { return }  // a loop: stop
            guard let directory = tiff.entries(ofDirectoryAt: next) else {
                brokenLink = true
                return
            }
            // A directory without a width and a height is no page, and libtiff stops there: so
            // does the count (else thousands of 6-byte empty directories each become a page).
            guard tiff.value(ofTag: 256, inDirectoryAt: next) != nil, tiff.value(ofTag: 257, inDirectoryAt: next) != nil
            else { return }
            complete += 1
            next = directory.next
        }
    }
}

/// The stream libtiff reads a TIFF from, closed with its owner: a duplicate of the file's own
/// descriptor, or an anonymous temporary file (`tmpfile`: it has no name and is gone when
/// closed) holding bytes that were only in memory.
private final class TIFFStream {
    let stream: UnsafeMutablePointer<FILE>

    init?(descriptor: Int32) {
        // Closed on exec, as the original is: a PDF page's renderer, spawned from another
        // lane meanwhile, inherits no descriptor of this file.
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        guard let stream = fdopen(copy, "rb") else {
            close(copy)
            return nil
        }
        self.stream = stream
    }

    init?(copying bytes: [UInt8]) {
        guard let stream = tmpfile() else { return nil }
        _ = fcntl(fileno(stream), F_SETFD, FD_CLOEXEC)
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, stream) }
        guard written == bytes.count, fflush(stream) == 0 else {
            fclose(stream)
            return nil
        }
        rewind(stream)
        self.stream = stream
    }

    deinit { fclose(stream) }
}
