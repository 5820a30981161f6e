import GlossGeometry

/// The blocks of a GIF, walked by Gloss with bounds checks, as far as the end of its first image.
///
/// Leptonica decodes a GIF with giflib's `DGifSlurp`, which decodes every frame before Leptonica
/// keeps the first: an animation of many large frames would be decoded whole. Gloss hands it
/// the file cut after the first image instead, and takes the size from that image's descriptor,
/// without decoding anything.
struct GIFFirstImage {
    var size: PixelSize
    /// Where the first image's data ends.
    var end: Int

    /// Nil when the file ends, or holds something other than a block, before the end of the
    /// first image's data: a GIF cut short.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 13, bytes.prefix(3).elementsEqual("GIF".utf8) else { return nil }
        /// The size of a colour table its flags announce.
        func colourTable(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0 }
        /// Past the sub-blocks from `start` and their terminator; nil when the file ends first.
        func subBlocks(from start: Int) -> Int? {
            var at = start
            while at < bytes.count {
                let length = Int(bytes[at])
                at += 1 + length
                if length == 0 { return at }
            }
            return nil
        }
        var offset = 13 + colourTable(bytes[10])
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21:  // an extension: its label, then sub-blocks
                guard let next = subBlocks(from: offset + 2) else { return nil }
                offset = next
            case 0x2C:  // the image descriptor: position, size, flags; a colour table; the data
                guard offset + 10 <= bytes.count else { return nil }
                let width = Int(bytes[offset + 5]) | Int(bytes[offset + 6]) << 8
                let height = Int(bytes[offset + 7]) | Int(bytes[offset + 8]) << 8
                let data = offset + 10 + colourTable(bytes[offset + 9]) + 1  // after the LZW code size
                guard let end = subBlocks(from: data) else { return nil }
                size = PixelSize(width: width, height: height)
                self.end = end
                return
            default:
                return nil
            }
        }
        return nil
    }
}
