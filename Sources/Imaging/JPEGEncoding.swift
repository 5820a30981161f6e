import CTurboJPEG

extension Raster {
    /// The raster as a baseline JPEG (4:2:0 for colour, one channel for grey), through TurboJPEG.
    public func jpegData(quality: Int) throws -> [UInt8] {
        let compressor = try Compressor()
        let grey = layout == .gray
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { if let output { tjFree(output) } }
        try compressor.check(pixels.withUnsafeBufferPointer { source in
            tjCompress2(compressor.handle, source.baseAddress, Int32(width), 0, Int32(height),
                        Int32((grey ? TJPF_GRAY : TJPF_RGB).rawValue), &output, &size,
                        Int32((grey ? TJSAMP_GRAY : TJSAMP_420).rawValue), Int32(min(100, max(1, quality))),
                        0)
        })
        guard let output else { throw ImagingError(path: "<display copy>", reason: .encodingFailed("JPEG: no output")) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private final class Compressor {
        let handle: tjhandle

        init() throws {
            guard let handle = tjInitCompress() else {
                throw ImagingError(path: "<display copy>", reason: .encodingFailed("JPEG encoder could not start"))
            }
            self.handle = handle
        }

        deinit { tjDestroy(handle) }

        /// Every TurboJPEG return code goes through here.
        func check(_ status: Int32) throws {
            guard status != 0 else { return }
            throw ImagingError(path: "<display copy>", reason: .encodingFailed("JPEG: " + String(cString: tjGetErrorStr2(handle))))
        }
    }
}
