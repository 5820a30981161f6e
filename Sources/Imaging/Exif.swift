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
        let tiff = TIFFBytes(Array(bytes))
        guard let tiff, var directory = tiff.uint32(at: 4).map(Int.init) else { return nil }
        for _ in 0..<page {
            guard let count = tiff.uint16(at: directory),
                  let next = tiff.uint32(at: directory + 2 + 12 * Int(count)), next != 0
            else { return nil }
            directory = Int(next)
        }
        guard let count = tiff.uint16(at: directory) else { return nil }
        for entry in 0..<Int(count) {
            let at = directory + 2 + 12 * entry
            guard let tag = tiff.uint16(at: at) else { return nil }
            // Tag 0x0112, type SHORT (3): the value sits in the first two bytes of the field.
            if tag == 0x0112, tiff.uint16(at: at + 2) == 3, let value = tiff.uint16(at: at + 8) {
                return Orientation(rawValue: Int(value))
            }
        }
        return nil
    }
}

/// TIFF bytes with their byte order ("II" little-endian or "MM" big-endian).
struct TIFFBytes {
    let bytes: [UInt8]
    let littleEndian: Bool

    init?(_ bytes: [UInt8]) {
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
}
