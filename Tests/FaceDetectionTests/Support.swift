import GlossGeometry
import GlossImaging
#if canImport(Glibc)
import Glibc
#endif

/// Test helpers: fixtures are found relative to this file, so the suite runs from any directory.
enum Fixtures {
    /// The package root: three levels above `Tests/FaceDetectionTests/Support.swift`.
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static func path(_ relative: String) -> String { root + "/fixtures/" + relative }

    static func raster(_ relative: String) throws -> Raster {
        try ImageFile(contentsOf: path(relative)).decodePage().raster
    }

    /// A fresh temporary directory for files a test writes.
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/gloss-faces-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func write(_ bytes: [UInt8], to path: String) {
        guard let f = fopen(path, "wb") else { fatalError("cannot write \(path)") }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }

    static func read(_ path: String) -> [UInt8] {
        guard let f = fopen(path, "rb") else { fatalError("cannot read \(path)") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            bytes += chunk[0..<n]
            if n < chunk.count { return bytes }
        }
    }

    static func listXML(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".xml") { names.append(directory + "/" + name) }
        }
        return names.sorted()
    }
}

extension PixelRect {
    var centreX: Double { Double(x) + Double(width) / 2 }
    var centreY: Double { Double(y) + Double(height) / 2 }
}
