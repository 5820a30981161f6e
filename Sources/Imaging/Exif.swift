import GlossGeometry

/// Reads the Orientation tag that cameras and scanners write, which Leptonica ignores.
///
/// A small bounds-checked reader: it looks only for tag 0x0112 in the first image directory of
/// a JPEG's Exif segment, or in page `n`'s directory of a TIFF, and never trusts an offset.
/// (Leptonica applies a TIFF's own tag when it decodes; the TIFF reader serves Exif blocks.)
public enum ExifReader {
    /// The orientation stored in a JPEG's APP1 Exif segment, if any.
    public static func orientation(inJPEG bytes: some RandomAccessCollection<UInt8>) -> Orientation? {
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard let exif = JPEGSegments(Array(bytes)).first(where: {
            $0.marker == 0xE1 && $0.body.count > 6 && $0.body.starts(with: exifHeader)
        }) else { return nil }
        return orientation(inTIFF: exif.body.dropFirst(6), page: 0)
    }

    /// The orientation of page `page` of a TIFF structure (a TIFF file, or an Exif block).
    public static func orientation(inTIFF bytes: some RandomAccessCollection<UInt8>, page: Int) -> Orientation? {
        Array(bytes).withUnsafeBytes { bytes in
            guard let tiff = TIFFBytes(bytes), let directory = tiff.directory(page),
                  let value = tiff.value(ofTag: 0x0112, inDirectoryAt: directory) else { return nil }
            return Orientation(rawValue: value)
        }
    }
}

/// TIFF bytes with their byte order ("II" little-endian or "MM" big-endian), for as long as
/// the buffer they view lives.
struct TIFFBytes {
    let bytes: UnsafeRawBufferPointer
    let littleEndian: Bool

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.bytes = bytes
    }

    func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    func uint32(at offset: Int) -> UInt32? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return littleEndian ? UInt32(first) | UInt32(second) << 16 : UInt32(first) << 16 | UInt32(second)
    }

    /// The first image directory's offset.
    var firstDirectory: Int? { uint32(at: 4).map(Int.init) }

    /// The number of entries of the directory at `offset`, and where the link to the next one
    /// is, when both lie inside the bytes.
    func entries(ofDirectoryAt offset: Int) -> (count: Int, next: Int)? {
        guard let count = uint16(at: offset).map(Int.init), let next = uint32(at: offset + 2 + 12 * count) else { return nil }
        return (count, Int(next))
    }

    /// The offset of page `page`'s directory, following the "next" links from the first.
    func directory(_ page: Int) -> Int? {
        guard page >= 0, var offset = firstDirectory else { return nil }
        for _ in 0..<page {
            guard let next = entries(ofDirectoryAt: offset)?.next, next != 0 else { return nil }
            offset = next
        }
        return offset
    }

    /// The value of an integer tag of the directory at `offset`, stored in the entry itself:
    /// BYTE, SHORT or LONG, or their signed forms (1, 3, 4, 6, 8, 9), each of which libtiff
    /// takes for a width, so a page's size is read whichever a file uses; nil when the tag is
    /// absent, of another type, or negative.
    func value(ofTag wanted: UInt16, inDirectoryAt offset: Int) -> Int? {
        guard let count = uint16(at: offset) else { return nil }
        for entry in 0..<Int(count) {
            let at = offset + 2 + 12 * entry
            guard uint16(at: at) == wanted else { continue }
            let value: Int? = switch uint16(at: at + 2) {
            case 1: at + 8 < bytes.count ? Int(bytes[at + 8]) : nil
            case 3: uint16(at: at + 8).map(Int.init)
            case 4: uint32(at: at + 8).map(Int.init)
            case 6: at + 8 < bytes.count ? Int(Int8(bitPattern: bytes[at + 8])) : nil
            case 8: uint16(at: at + 8).map { Int(Int16(bitPattern: $0)) }
            case 9: uint32(at: at + 8).map { Int(Int32(bitPattern: $0)) }
            default: nil
            }
            return value.flatMap { $0 >= 0 ? $0 : nil }
        }
        return nil
    }
}
