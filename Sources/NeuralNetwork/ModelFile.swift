#if canImport(Glibc)
import Glibc
#endif

/// The weights of a network as Gloss stores them (`models/*/`): the magic `GLOSSNN1`, a version,
/// a table of named tensors with their shapes, then every tensor's values, little-endian, in
/// table order. Version 1 (`models/yunet/README.md`) holds float32 values only. Version 2
/// (`models/ppocr/README.md`) gives each tensor a storage kind (float32 or float16), carries the
/// network's program as UTF-8 text after the table, and starts every tensor's values at a
/// multiple of 16 bytes.
///
/// Reading checks everything a hostile or damaged file could get wrong (magic, version, counts,
/// shapes against element counts, the total against the file's length), so a network built from
/// a model never indexes outside a tensor.
public struct ModelFile: Sendable {
    public struct Tensor: Sendable, Equatable {
        public var name: String
        public var shape: [Int]
        public var values: [Float]
    }

    /// How a tensor's values are stored in a version 2 file; they are float32 once read.
    public enum Storage: UInt32, Sendable {
        case float32 = 0
        case float16 = 1

        var size: Int { self == .float32 ? 4 : 2 }
    }

    public static let magic: [UInt8] = Array("GLOSSNN1".utf8)
    public static let versions: ClosedRange<UInt32> = 1...2
    /// Far above any model Gloss ships (YuNet has 106 tensors, 53,104 floats; the PP-OCRv6
    /// recogniser 142 tensors, 5.3 M floats).
    static let maximumTensors = 4096
    static let maximumValues = 64 << 20
    static let maximumProgram = 1 << 20
    static let alignment = 16

    public var tensors: [Tensor]
    /// The network's operations, one a line (version 2); empty for version 1, which holds
    /// weights only.
    public var program: String

    /// Parses a model held in memory; `path` names it in errors.
    public init(bytes: [UInt8], path: String) throws(ModelError) {
        // `withUnsafeBytes` rethrows untyped errors, so the typed one travels in a Result.
        let parsed = bytes.withUnsafeBytes { raw in Result { () throws(ModelError) in try Self.parse(raw, path: path) } }
        (tensors, program) = try parsed.get()
    }

    /// Parses a model in memory the caller keeps alive while this runs (such as one assembled
    /// into the binary); the values are copied out.
    public init(bytes: UnsafeRawBufferPointer, path: String) throws(ModelError) {
        (tensors, program) = try Self.parse(bytes, path: path)
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, path: String) throws(ModelError) -> ([Tensor], String) {
        var reader = ByteReader(bytes: bytes, path: path)
        guard bytes.count >= 16, Array(bytes[0..<8]) == Self.magic else { throw reader.error("not a Gloss model (no GLOSSNN1 magic)") }
        reader.offset = 8
        let version = try reader.word()
        guard Self.versions.contains(version) else {
            throw reader.error("model format version \(version); this Gloss reads \(Self.versions.lowerBound) to \(Self.versions.upperBound)")
        }
        let count = Int(try reader.word())
        guard count > 0, count <= Self.maximumTensors else { throw reader.error("\(count) tensors") }
        var table: [(name: String, shape: [Int], count: Int, storage: Storage)] = []
        var total = 0
        for index in 0..<count {
            let nameLength = Int(try reader.word())
            guard nameLength <= 256 else { throw reader.error("tensor \(index): a name of \(nameLength) bytes") }
            let name = String(decoding: try reader.bytes(nameLength), as: UTF8.self)
            let rank = Int(try reader.word())
            guard (1...6).contains(rank) else { throw reader.error("tensor \(name): rank \(rank)") }
            var shape: [Int] = []
            var product = 1
            for _ in 0..<rank {
                let dimension = Int(try reader.word())
                guard dimension > 0, dimension <= Self.maximumValues else { throw reader.error("tensor \(name): dimension \(dimension)") }
                shape.append(dimension)
                product = product.multipliedReportingOverflow(by: dimension).partialValue
                guard product <= Self.maximumValues else { throw reader.error("tensor \(name): shape \(shape) is too large") }
            }
            let elements = Int(try reader.word())
            guard elements == product else { throw reader.error("tensor \(name): \(elements) values for shape \(shape)") }
            var storage = Storage.float32
            if version >= 2 {
                let kind = try reader.word()
                guard let known = Storage(rawValue: kind) else { throw reader.error("tensor \(name): storage kind \(kind)") }
                storage = known
            }
            total += elements
            guard total <= Self.maximumValues else { throw reader.error("more than \(Self.maximumValues) values") }
            table.append((name, shape, elements, storage))
        }
        var program = ""
        if version >= 2 {
            let length = Int(try reader.word())
            guard length <= Self.maximumProgram else { throw reader.error("a program of \(length) bytes") }
            guard let text = String(validating: try reader.bytes(length), as: UTF8.self) else {
                throw reader.error("the program is not UTF-8")
            }
            program = text
        }
        // Where the values end, from the table alone, before any is read.
        var end = reader.offset
        for entry in table {
            if version >= 2 { end += (Self.alignment - end % Self.alignment) % Self.alignment }
            end += entry.count * entry.storage.size
        }
        guard bytes.count == end else {
            throw reader.error("\(bytes.count) bytes where the table promises \(end)")
        }
        var tensors: [Tensor] = []
        tensors.reserveCapacity(table.count)
        for entry in table {
            if version >= 2 { reader.offset += (Self.alignment - reader.offset % Self.alignment) % Self.alignment }
            let values = entry.storage == .float32 ? try reader.floats(entry.count) : try reader.halves(entry.count)
            tensors.append(Tensor(name: entry.name, shape: entry.shape, values: values))
        }
        return (tensors, program)
    }

    /// The tensor named `name`, or an error naming the model and the tensor.
    public func tensor(_ name: String, path: String) throws(ModelError) -> Tensor {
        guard let found = tensors.first(where: { $0.name == name }) else {
            throw ModelError(path: path, reason: "no tensor \(name)")
        }
        return found
    }

    /// Reads the model at `path`.
    public init(contentsOf path: String) throws(ModelError) {
        guard let file = fopen(path, "rb") else {
            throw ModelError(path: path, reason: "cannot be read: " + String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<count]
            if count < chunk.count { break }
            guard bytes.count <= Self.maximumValues * 4 + (1 << 20) else { throw ModelError(path: path, reason: "too large for a model") }
        }
        guard ferror(file) == 0 else { throw ModelError(path: path, reason: "read error") }
        try self.init(bytes: bytes, path: path)
    }
}

/// A model file that cannot be used, and why.
public struct ModelError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): model: \(reason)" }
}

/// Little-endian words and floats from a byte buffer, every read bounds-checked.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    let path: String
    var offset = 0

    func error(_ reason: String) -> ModelError { ModelError(path: path, reason: reason) }

    mutating func bytes(_ count: Int) throws(ModelError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - offset else { throw error("cut short at byte \(offset)") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    mutating func word() throws(ModelError) -> UInt32 {
        let four = try bytes(4)
        return UInt32(littleEndian: four.loadUnaligned(as: UInt32.self))
    }

    mutating func floats(_ count: Int) throws(ModelError) -> [Float] {
        let raw = try bytes(count * 4)
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialised in
            for index in 0..<count {
                buffer[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
            }
            initialised = count
        }
    }

    mutating func halves(_ count: Int) throws(ModelError) -> [Float] {
        let raw = try bytes(count * 2)
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialised in
            for index in 0..<count {
                let bits = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))
                buffer[index] = Float(Float16(bitPattern: bits))
            }
            initialised = count
        }
    }
}
