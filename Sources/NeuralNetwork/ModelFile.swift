#if canImport(Glibc)
import Glibc
#endif

/// The weights of a network as Gloss stores them (`models/*/`): the magic `GLOSSNN1`, a version,
/// a table of named tensors with their shapes, then every tensor's float32 values, little-endian,
/// in table order. `models/yunet/README.md` describes the format byte by byte.
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

    public static let magic: [UInt8] = Array("GLOSSNN1".utf8)
    public static let version: UInt32 = 1
    /// Far above any model Gloss ships (YuNet has 106 tensors, 53,104 floats).
    static let maximumTensors = 4096
    static let maximumValues = 64 << 20

    public var tensors: [Tensor]

    /// Parses a model held in memory; `path` names it in errors.
    public init(bytes: [UInt8], path: String) throws(ModelError) {
        var reader = ByteReader(bytes: bytes, path: path)
        guard bytes.count >= 16, Array(bytes[0..<8]) == Self.magic else { throw reader.error("not a Gloss model (no GLOSSNN1 magic)") }
        reader.offset = 8
        let version = try reader.word()
        guard version == Self.version else { throw reader.error("model format version \(version); this Gloss reads \(Self.version)") }
        let count = Int(try reader.word())
        guard count > 0, count <= Self.maximumTensors else { throw reader.error("\(count) tensors") }
        var table: [(name: String, shape: [Int], count: Int)] = []
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
            total += elements
            guard total <= Self.maximumValues else { throw reader.error("more than \(Self.maximumValues) values") }
            table.append((name, shape, elements))
        }
        guard bytes.count - reader.offset == total * 4 else {
            throw reader.error("\(bytes.count - reader.offset) bytes of values where the table promises \(total * 4)")
        }
        tensors = try table.map { entry throws(ModelError) in
            Tensor(name: entry.name, shape: entry.shape, values: try reader.floats(entry.count))
        }
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

/// Little-endian words and floats from a byte array, every read bounds-checked.
private struct ByteReader {
    let bytes: [UInt8]
    let path: String
    var offset = 0

    func error(_ reason: String) -> ModelError { ModelError(path: path, reason: reason) }

    mutating func bytes(_ count: Int) throws(ModelError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw error("cut short at byte \(offset)") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func word() throws(ModelError) -> UInt32 {
        let four = try bytes(4)
        return four.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func floats(_ count: Int) throws(ModelError) -> [Float] {
        let slice = try bytes(count * 4)
        return slice.withUnsafeBytes { raw in
            (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
