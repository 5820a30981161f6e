import CZlib
import GlossGeometry

/// The body of a PDF file (ISO 32000-1, 7.5): numbered objects written one after the other to a
/// sink, then the cross-reference table of their byte offsets and the trailer.
///
/// Objects go out as soon as they are made, so a document of hundreds of scanned pages is never
/// held whole in memory; an object that must name later ones (the page tree) is given its number
/// first with `reserve()` and written at the end.
struct PDFFile {
    private let sink: ([UInt8]) throws -> Void
    /// Bytes written so far: the offset of the next object.
    private(set) var length = 0
    /// Byte offset of each object, by object number; 0 until it is written.
    private var offsets: [Int] = [0]
    /// Checksums of every byte written so far, for the file identifier.
    private var crc = crc32(0, nil, 0)
    private var adler = adler32(0, nil, 0)

    /// Starts the file with its header. The comment of four bytes above 127 tells transfer
    /// programs that the file is binary (7.5.2).
    init(sink: @escaping ([UInt8]) throws -> Void) throws {
        self.sink = sink
        try emit(Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A])
    }

    /// A new object number, for an object written later.
    mutating func reserve() -> Int {
        offsets.append(0)
        return offsets.count - 1
    }

    /// Writes object `number` holding `value` (a dictionary, an array, a number...).
    mutating func write(_ number: Int, _ value: String) throws {
        try begin(number)
        try emit(Array((value + "\nendobj\n").utf8))
    }

    /// Writes object `number` as a stream: `dictionary` holds its entries without `/Length`,
    /// which is added here.
    mutating func write(_ number: Int, stream dictionary: String, data: [UInt8]) throws {
        try begin(number)
        try emit(Array("<< \(dictionary) /Length \(data.count) >>\nstream\n".utf8))
        try emit(data)
        try emit(Array("\nendstream\nendobj\n".utf8))
    }

    /// Writes the cross-reference table and the trailer. Every reserved object must have been
    /// written: a reader follows the table to each one. The trailer's `/ID` (14.4, required by
    /// PDF/A) is made of the file's own bytes: their CRC-32, their Adler-32 and their count, 16
    /// bytes that differ for different files and are the same for the same file.
    mutating func finish(root: Int, info: Int) throws {
        precondition(!offsets.dropFirst().contains(0), "an object was reserved but never written")
        let table = length
        // Each entry is exactly 20 bytes, its end of line "\r\n" or " \n" (7.5.4).
        var xref = "xref\n0 \(offsets.count)\n0000000000 65535 f \n"
        for offset in offsets.dropFirst() { xref += Self.padded(offset) + " 00000 n \n" }
        let identifier = HexText.format(crc, digits: 8, uppercase: true) + HexText.format(adler, digits: 8, uppercase: true)
            + HexText.format(length, digits: 16, uppercase: true)
        xref += "trailer\n<< /Size \(offsets.count) /Root \(root) 0 R /Info \(info) 0 R /ID [<\(identifier)> <\(identifier)>] >>\n"
            + "startxref\n\(table)\n%%EOF\n"
        try emit(Array(xref.utf8))
    }

    private mutating func begin(_ number: Int) throws {
        precondition(offsets[number] == 0, "object \(number) written twice")
        offsets[number] = length
        try emit(Array("\(number) 0 obj\n".utf8))
    }

    private mutating func emit(_ bytes: [UInt8]) throws {
        try sink(bytes)
        length += bytes.count
        bytes.withUnsafeBufferPointer { buffer in
            crc = crc32(crc, buffer.baseAddress, uInt(buffer.count))
            adler = adler32(adler, buffer.baseAddress, uInt(buffer.count))
        }
    }

    private static func padded(_ offset: Int) -> String {
        let digits = String(offset)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }
}

/// Deflate (zlib format, the `/FlateDecode` filter), fed in pieces: an image is compressed row
/// by row, so it is never copied whole before compression. Level 6, zlib's default: level 9
/// made an A4 page's filtered pixels 1 to 6% smaller in three to four times the time.
final class Deflater {
    private var stream = z_stream()
    private var output: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(level: Int32 = 6) {
        let status = gloss_deflate_init(&stream, level)
        precondition(status == Z_OK, "zlib could not start: \(status)")
    }

    deinit { deflateEnd(&stream) }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(bytes.count)
        run(flush: Z_NO_FLUSH)
    }

    func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The compressed bytes; the deflater is done after this.
    func finish() -> [UInt8] {
        stream.next_in = nil
        stream.avail_in = 0
        run(flush: Z_FINISH)
        return output
    }

    /// Compresses `bytes` in one go.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        let deflater = Deflater(level: level)
        deflater.append(bytes)
        return deflater.finish()
    }

    private func run(flush: Int32) {
        let size = chunk.count
        chunk.withUnsafeMutableBufferPointer { buffer in
            repeat {
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(size)
                let status = deflate(&stream, flush)
                // Only a programming error (a stream used after its end) makes deflate fail here.
                precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate failed: \(status)")
                output.append(contentsOf: buffer[0..<(size - Int(stream.avail_out))])
            } while stream.avail_out == 0
        }
    }
}
