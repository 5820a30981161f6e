import Foundation
import GlossContract

#if canImport(Glibc)
import Glibc
#endif

/// Writes files so that a reader, or a run killed half-way, sees either the old file or the
/// whole new one: the bytes go to a temporary name beside the target, which is then renamed.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        try write(to: path) { append in try append(bytes) }
    }

    /// Writes a file made piece by piece, as atomically: `body` appends to it, and it replaces
    /// `path` only once `body` returns. Small pieces are gathered into writes of up to a megabyte.
    static func write(to path: String, _ body: (_ append: @escaping ([UInt8]) throws -> Void) throws -> Void) throws {
        try produce(path) { temporary in
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw OutputError(path: path, cause: systemError()) }
            let buffer = WriteBuffer()
            do {
                try body { bytes in
                    if buffer.bytes.count + bytes.count > 1 << 20 {
                        try writeAll(buffer.bytes, to: descriptor, naming: path)
                        buffer.bytes.removeAll(keepingCapacity: true)
                    }
                    if bytes.count >= 1 << 20 { try writeAll(bytes, to: descriptor, naming: path) } else { buffer.bytes += bytes }
                }
                try writeAll(buffer.bytes, to: descriptor, naming: path)
            } catch {
                close(descriptor)
                throw error
            }
            guard close(descriptor) == 0 else { throw OutputError(path: path, cause: systemError()) }
        }
    }

    /// Writes all of `bytes` to an open descriptor, however the kernel splits the write.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, naming path: String) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw OutputError(path: path, cause: systemError()) }
            written += count
        }
    }

    /// Makes `path` as atomically from a file `body` writes at the temporary path it is given
    /// (a library that writes files by name, such as libqpdf).
    static func produce(_ path: String, _ body: (_ temporary: String) throws -> Void) throws {
        let temporary = TemporaryName.beside(path)
        do {
            try body(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let cause = systemError()
            unlink(temporary)
            throw OutputError(path: path, cause: cause)
        }
    }

    /// Makes `path` another name of the file at `existing` (a hard link; a copy where the file
    /// system has none), atomically.
    static func share(_ existing: String, as path: String) throws {
        try produce(path) { temporary in
            guard link(existing, temporary) != 0 else { return }
            do {
                try FileManager.default.copyItem(atPath: existing, toPath: temporary)
            } catch {
                throw OutputError(path: path, cause: "cannot copy \(existing): \(error.localizedDescription)")
            }
        }
    }

    static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// Removes the temporary files a killed run left behind in `folders`: only Gloss's own,
    /// regular files named as `TemporaryName` names them (a reader's `notes.tmp-2024-05` stays).
    static func removeLeftovers(in folders: [String]) {
        for folder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where TemporaryName.isTemporary(name) {
                var info = stat()
                guard lstat(folder + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
                unlink(folder + "/" + name)
            }
        }
    }

    static func createDirectory(_ path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw OutputError(path: path, cause: "cannot create directory")
        }
    }
}

/// The bytes `AtomicFile.write(to:_:)` has gathered and not yet written.
private final class WriteBuffer {
    var bytes: [UInt8] = []
}

/// An output file or folder that could not be written.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var cause: String
    public var description: String { "\(path): cannot write: \(cause)" }
}

func systemError() -> String { String(cString: strerror(errno)) }

/// The bytes of a file a person named (a list of inputs, a file of corrections), or why they
/// cannot be read, in the system's words: "No such file or directory", "Permission denied",
/// "Is a directory".
public func contentsOfNamedFile(_ path: String) -> Result<Data, FileReadProblem> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(FileReadProblem(cause: systemError())) }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
        return .failure(FileReadProblem(cause: String(cString: strerror(EISDIR))))
    }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    do {
        return .success(try handle.readToEnd() ?? Data())
    } catch {
        return .failure(FileReadProblem(cause: error.localizedDescription))
    }
}

/// Why a named file could not be read.
public struct FileReadProblem: Error, Sendable {
    public var cause: String
}
