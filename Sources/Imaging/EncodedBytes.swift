#if canImport(Glibc)
import Glibc
#endif

/// An image file's encoded bytes: a read-only mapping of the file, or bytes already in memory
/// (a download). Decoders see them as one buffer either way.
///
/// A mapping costs no memory of its own: its pages are the kernel's page cache, read as a
/// decoder reaches them and dropped under pressure, where a copy in memory would count twice
/// and stay.
enum EncodedBytes: Sendable {
    case mapped(MappedFile)
    case memory([UInt8])

    var count: Int {
        switch self {
        case .mapped(let file): file.count
        case .memory(let bytes): bytes.count
        }
    }

    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch self {
        case .mapped(let file): try body(file.buffer)
        case .memory(let bytes): try bytes.withUnsafeBytes(body)
        }
    }

    /// The first `length` bytes (fewer when there are fewer), copied.
    func prefix(_ length: Int) -> [UInt8] {
        withUnsafeBytes { Array($0.prefix(length)) }
    }
}

/// A regular file opened and mapped read-only; the mapping and the descriptor are released
/// with the last owner.
///
/// If another program truncates the file while it is mapped, reading the lost pages raises
/// SIGBUS. Gloss reads the file through the descriptor where it walks all of it (hashing), so
/// only a decoder reading the file at that moment can meet a truncation.
final class MappedFile: Sendable {
    /// The descriptor, open for as long as the mapping: hashing and libtiff read through it.
    let descriptor: Int32
    let count: Int
    // The mapping's address, as an integer: the pages are read-only, so sharing it is safe.
    private let address: Int

    /// Maps the regular file at `path`, refusing before a byte is read a file that is not a
    /// regular one, is empty, or holds more than `maximumSize` bytes.
    convenience init(path: String, maximumSize: Int) throws {
        // Non-blocking, so that a FIFO or a device named like an image is refused below rather
        // than waited on forever; it changes nothing for a regular file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ImagingError(path: path, reason: .unreadable(systemError())) }
        try self.init(descriptor: descriptor, path: path, maximumSize: maximumSize)
    }

    /// Maps the file open on `descriptor`, which it owns from here on (closed on failure too).
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
        let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let mapping, mapping != UnsafeMutableRawPointer(bitPattern: -1) else {
            let why = systemError()
            close(descriptor)
            throw ImagingError(path: path, reason: .unreadable(why))
        }
        self.descriptor = descriptor
        count = size
        address = Int(bitPattern: mapping)
    }

    deinit {
        munmap(UnsafeMutableRawPointer(bitPattern: address), count)
        close(descriptor)
    }

    var buffer: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)
    }

    /// Reads `count` bytes at `offset` through the descriptor into `target` (not through the
    /// mapping: a file truncated meanwhile is a short read, not a SIGBUS).
    func read(into target: UnsafeMutableRawBufferPointer, at offset: Int, path: String) throws {
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
