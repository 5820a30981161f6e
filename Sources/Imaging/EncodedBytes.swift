#if canImport(Glibc)
import Glibc
#endif

/// An image file's encoded bytes: an input file opened (`OpenFile`), or bytes already in
/// memory (a download). Decoders see them as one buffer either way.
enum EncodedBytes: Sendable {
    case file(OpenFile)
    case memory([UInt8])

    var count: Int {
        switch self {
        case .file(let file): file.count
        case .memory(let bytes): bytes.count
        }
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch self {
        case .file(let file): try body(file.buffer)
        case .memory(let bytes): try bytes.withUnsafeBytes(body)
        }
    }

    /// The first `length` bytes (fewer when there are fewer), copied.
    func prefix(_ length: Int) -> [UInt8] {
        withUnsafeBytes { Array($0.prefix(length)) }
    }
}

/// A regular file opened, its bytes read whole into memory or, past `readWholeLimit`, mapped
/// read-only; the bytes and the descriptor are released with the last owner.
///
/// Read whole, a file another program truncates or rewrites meanwhile (an upload, an rsync) is
/// a short read and a typed error; a mapping's lost pages would raise SIGBUS in whichever
/// decoder met them, ending the batch. A mapping costs no memory of its own (its pages are the
/// kernel's page cache), so only files past the limit, large PDFs in practice, are mapped, and
/// for those the risk remains. Hashing reads through `read(into:at:)`, which gives the bytes
/// the decoders see.
final class OpenFile: Sendable {
    /// Files up to this size are read whole: every scan and photograph in practice, at a cost
    /// of at most this much memory a worker while its file is open.
    static let readWholeLimit = 32 << 20

    /// The descriptor, open for as long as the bytes: libtiff and a PDF's renderer read through it.
    let descriptor: Int32
    let count: Int
    // The bytes' address, as an integer: they are never written once read, so sharing it is safe.
    private let address: Int
    /// Whether the bytes are a mapping (else memory this object allocated).
    private let isMapped: Bool

    /// Opens the regular file at `path`, refusing before a byte is read a file that is not a
    /// regular one, is empty, or holds more than `maximumSize` bytes.
    convenience init(path: String, maximumSize: Int) throws {
        // Non-blocking, so that a FIFO or a device named like an image is refused below rather
        // than waited on forever; it changes nothing for a regular file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
        try self.init(descriptor: descriptor, path: path, maximumSize: maximumSize)
    }

    /// Opens the file open on `descriptor`, which it owns from here on (closed on failure too).
    init(descriptor: Int32, path: String, maximumSize: Int) throws {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let why = systemError()
            close(descriptor)
            throw ImagingError(path: path, reason: .unreadable(why))
        }
        let size = Int(info.st_size)
        let refusal: ImagingError.Reason? = if (info.st_mode & S_IFMT) != S_IFREG {
            .unreadable("not a regular file")
        } else if size == 0 {
            .empty
        } else if size > maximumSize {
            .fileTooLarge(size: size, limit: maximumSize)
        } else {
            nil
        }
        if let refusal {
            close(descriptor)
            throw ImagingError(path: path, reason: refusal)
        }
        if size <= Self.readWholeLimit {
            let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            do {
                try Self.read(descriptor, into: memory, at: 0, path: path)
            } catch {
                memory.deallocate()
                close(descriptor)
                throw error
            }
            address = Int(bitPattern: memory.baseAddress)
            isMapped = false
        } else {
            let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
            guard let mapping, mapping != UnsafeMutableRawPointer(bitPattern: -1) else {
                let why = systemError()
                close(descriptor)
                throw ImagingError(path: path, reason: .unreadable(why))
            }
            address = Int(bitPattern: mapping)
            isMapped = true
        }
        self.descriptor = descriptor
        count = size
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(bitPattern: address), count)
        } else {
            UnsafeMutableRawPointer(bitPattern: address)?.deallocate()
        }
        close(descriptor)
    }

    var buffer: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)
    }

    /// Reads `target.count` bytes at `offset` into `target`: from memory when the file was read
    /// whole (the bytes the decoders see), else through the descriptor, not the mapping, so that
    /// a file truncated meanwhile is a short read, not a SIGBUS.
    func read(into target: UnsafeMutableRawBufferPointer, at offset: Int, path: String) throws {
        guard isMapped else {
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + target.count]))
            return
        }
        try Self.read(descriptor, into: target, at: offset, path: path)
    }

    private static func read(_ descriptor: Int32, into target: UnsafeMutableRawBufferPointer, at offset: Int, path: String) throws {
        var filled = 0
        while filled < target.count {
            let got = pread(descriptor, target.baseAddress! + filled, target.count - filled, off_t(offset + filled))
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
            guard got > 0 else { throw ImagingError(path: path, reason: .unreadable("the file shrank while it was read")) }
            filled += got
        }
    }
}

func systemError() -> String { String(cString: strerror(errno)) }
