/// Activations of one layer: `channels` planes of `height` rows of `width` floats (NCHW with a
/// batch of one). Planes are contiguous, so a 1x1 convolution reads whole rows of pixels and a
/// depthwise one works plane by plane, both vectorised along the pixels.
///
/// A feature map owns its storage and keeps it when it is reshaped to a size that fits, so a
/// network that runs page after page at similar sizes allocates nothing in its steady state.
public struct FeatureMap: Sendable {
    public private(set) var channels: Int
    public private(set) var height: Int
    public private(set) var width: Int
    /// `channels * height * width` values, plane after plane; may be longer than that.
    public var storage: [Float]

    public init(channels: Int, height: Int, width: Int) {
        precondition(channels >= 0 && height >= 0 && width >= 0)
        self.channels = channels
        self.height = height
        self.width = width
        storage = [Float](repeating: 0, count: channels * height * width)
    }

    public init(channels: Int, height: Int, width: Int, values: [Float]) {
        precondition(values.count == channels * height * width, "\(values.count) values for \(channels)x\(height)x\(width)")
        self.channels = channels
        self.height = height
        self.width = width
        storage = values
    }

    public var planeSize: Int { height * width }
    public var count: Int { channels * planeSize }

    /// The values in use, plane after plane.
    public var values: ArraySlice<Float> { storage[0..<count] }

    public subscript(channel: Int, y: Int, x: Int) -> Float {
        get { storage[(channel * height + y) * width + x] }
        set { storage[(channel * height + y) * width + x] = newValue }
    }

    /// Takes a new shape, growing the storage only when it does not fit; contents are undefined.
    public mutating func reshape(channels: Int, height: Int, width: Int) {
        self.channels = channels
        self.height = height
        self.width = width
        reserve(channels * height * width)
    }

    /// Grows the storage to at least `count` values (contents undefined). The old storage is
    /// let go before the new is made, so the two are never held at once.
    public mutating func reserve(_ count: Int) {
        guard storage.count < count else { return }
        storage = []
        storage = [Float](repeating: 0, count: count)
    }
}
