/// The layers a small detection CNN is made of, each writing into an output the caller owns
/// (reshaped, never reallocated once large enough). Inner loops run along a row of pixels in
/// `SIMD16<Float>` steps, with a scalar tail.
public enum Layers {
    public typealias Vector = SIMD16<Float>
    static let lanes = Vector.scalarCount

    /// A full 3x3 convolution with stride 2 and zero padding of 1, as a network's first layer
    /// applies to the picture. `weights` are `[output][input][3][3]`; the output is
    /// `ceil(height / 2) x ceil(width / 2)`.
    public static func convolution3x3Stride2(
        _ input: FeatureMap, weights: [Float], bias: [Float], relu: Bool, into output: inout FeatureMap,
        scratch: inout [Float]
    ) {
        let outputs = bias.count, inputs = input.channels
        precondition(weights.count == outputs * inputs * 9)
        let height = (input.height + 1) / 2, width = (input.width + 1) / 2
        output.reshape(channels: outputs, height: height, width: width)
        let inHeight = input.height, inWidth = input.width
        input.storage.withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { w in
                output.storage.withUnsafeMutableBufferPointer { target in
                    // One output row at a time: each input tap is gathered once per row into a
                    // contiguous strip (stride 2 makes it non-contiguous in the input), then
                    // every output channel accumulates from the strips with vector arithmetic.
                    if scratch.count < inputs * 9 * width { scratch = [Float](repeating: 0, count: inputs * 9 * width) }
                    for oy in 0..<height {
                        scratch.withUnsafeMutableBufferPointer { strip in
                            for c in 0..<inputs {
                                for ky in 0..<3 {
                                    let y = oy * 2 + ky - 1
                                    for kx in 0..<3 {
                                        let row = strip.baseAddress! + ((c * 3 + ky) * 3 + kx) * width
                                        guard y >= 0 && y < inHeight else {
                                            row.update(repeating: 0, count: width)
                                            continue
                                        }
                                        let plane = source.baseAddress! + (c * inHeight + y) * inWidth
                                        for ox in 0..<width {
                                            let x = ox * 2 + kx - 1
                                            row[ox] = x >= 0 && x < inWidth ? plane[x] : 0
                                        }
                                    }
                                }
                            }
                            for o in 0..<outputs {
                                let out = target.baseAddress! + (o * height + oy) * width
                                out.update(repeating: bias[o], count: width)
                                for tap in 0..<(inputs * 9) {
                                    multiplyAdd(w[o * inputs * 9 + tap], strip.baseAddress! + tap * width, into: out, count: width)
                                }
                                if relu { rectify(out, count: width) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A 1x1 convolution: every output pixel mixes the input channels of the same pixel.
    /// `weights` are `[output][input]`. Blocked: a strip of pixels stays in the first-level cache
    /// while four output channels accumulate from it at once.
    public static func pointwise(
        _ input: FeatureMap, weights: [Float], bias: [Float], relu: Bool, into output: inout FeatureMap
    ) {
        let outputs = bias.count, inputs = input.channels, pixels = input.planeSize
        precondition(weights.count == outputs * inputs)
        output.reshape(channels: outputs, height: input.height, width: input.width)
        input.storage.withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { w in
                output.storage.withUnsafeMutableBufferPointer { target in
                    let src = UnsafeRawPointer(source.baseAddress!), dst = UnsafeMutableRawPointer(target.baseAddress!)
                    let stride = pixels * MemoryLayout<Float>.stride
                    var p = 0
                    while p + lanes <= pixels {
                        let offset = p * MemoryLayout<Float>.stride
                        var o = 0
                        while o + 4 <= outputs {
                            var a0 = Vector(repeating: bias[o]), a1 = Vector(repeating: bias[o + 1])
                            var a2 = Vector(repeating: bias[o + 2]), a3 = Vector(repeating: bias[o + 3])
                            let w0 = w.baseAddress! + o * inputs
                            for i in 0..<inputs {
                                let v = src.loadUnaligned(fromByteOffset: i * stride + offset, as: Vector.self)
                                a0 += v * w0[i]
                                a1 += v * w0[inputs + i]
                                a2 += v * w0[2 * inputs + i]
                                a3 += v * w0[3 * inputs + i]
                            }
                            if relu {
                                let zero = Vector()
                                a0 = maximum(a0, zero); a1 = maximum(a1, zero)
                                a2 = maximum(a2, zero); a3 = maximum(a3, zero)
                            }
                            dst.storeBytes(of: a0, toByteOffset: o * stride + offset, as: Vector.self)
                            dst.storeBytes(of: a1, toByteOffset: (o + 1) * stride + offset, as: Vector.self)
                            dst.storeBytes(of: a2, toByteOffset: (o + 2) * stride + offset, as: Vector.self)
                            dst.storeBytes(of: a3, toByteOffset: (o + 3) * stride + offset, as: Vector.self)
                            o += 4
                        }
                        while o < outputs {
                            var a = Vector(repeating: bias[o])
                            for i in 0..<inputs {
                                a += src.loadUnaligned(fromByteOffset: i * stride + offset, as: Vector.self) * w[o * inputs + i]
                            }
                            if relu { a = maximum(a, Vector()) }
                            dst.storeBytes(of: a, toByteOffset: o * stride + offset, as: Vector.self)
                            o += 1
                        }
                        p += lanes
                    }
                    // The last pixels, fewer than a vector.
                    for q in p..<pixels {
                        for o in 0..<outputs {
                            var sum = bias[o]
                            for i in 0..<inputs { sum += source[i * pixels + q] * w[o * inputs + i] }
                            target[o * pixels + q] = relu ? max(sum, 0) : sum
                        }
                    }
                }
            }
        }
    }

    /// A 3x3 convolution of each channel by itself, stride 1, zero padding of 1. `weights` are
    /// `[channel][3][3]`. Each plane is copied once into a zero-bordered scratch plane, so the
    /// inner loop has no edge cases.
    public static func depthwise3x3(
        _ input: FeatureMap, weights: [Float], bias: [Float], relu: Bool, into output: inout FeatureMap,
        scratch: inout [Float]
    ) {
        let channels = input.channels, height = input.height, width = input.width
        precondition(weights.count == channels * 9 && bias.count == channels)
        output.reshape(channels: channels, height: height, width: width)
        let paddedWidth = width + 2, paddedCount = (height + 2) * paddedWidth
        if scratch.count < paddedCount { scratch = [Float](repeating: 0, count: paddedCount) }
        input.storage.withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { w in
                output.storage.withUnsafeMutableBufferPointer { target in
                    scratch.withUnsafeMutableBufferPointer { padded in
                        let pad = padded.baseAddress!
                        pad.update(repeating: 0, count: paddedCount)
                        for c in 0..<channels {
                            let plane = source.baseAddress! + c * height * width
                            for y in 0..<height {
                                (pad + (y + 1) * paddedWidth + 1).update(from: plane + y * width, count: width)
                            }
                            let k = w.baseAddress! + c * 9
                            let out = target.baseAddress! + c * height * width
                            for y in 0..<height {
                                let row0 = pad + y * paddedWidth, row1 = row0 + paddedWidth, row2 = row1 + paddedWidth
                                let destination = out + y * width
                                var x = 0
                                while x + lanes <= width {
                                    var sum = Vector(repeating: bias[c])
                                    sum += load(row0 + x) * k[0] + load(row0 + x + 1) * k[1] + load(row0 + x + 2) * k[2]
                                    sum += load(row1 + x) * k[3] + load(row1 + x + 1) * k[4] + load(row1 + x + 2) * k[5]
                                    sum += load(row2 + x) * k[6] + load(row2 + x + 1) * k[7] + load(row2 + x + 2) * k[8]
                                    if relu { sum = maximum(sum, Vector()) }
                                    store(sum, destination + x)
                                    x += lanes
                                }
                                while x < width {
                                    var sum = bias[c]
                                    sum += row0[x] * k[0] + row0[x + 1] * k[1] + row0[x + 2] * k[2]
                                    sum += row1[x] * k[3] + row1[x + 1] * k[4] + row1[x + 2] * k[5]
                                    sum += row2[x] * k[6] + row2[x + 1] * k[7] + row2[x + 2] * k[8]
                                    destination[x] = relu ? max(sum, 0) : sum
                                    x += 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The largest of each 2x2 block, stride 2. An odd last row or column is a block of its own
    /// (ceil mode), so no pixel is dropped.
    public static func maxPool2x2(_ input: FeatureMap, into output: inout FeatureMap) {
        let height = (input.height + 1) / 2, width = (input.width + 1) / 2
        let inHeight = input.height, inWidth = input.width
        output.reshape(channels: input.channels, height: height, width: width)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                for c in 0..<input.channels {
                    let plane = source.baseAddress! + c * inHeight * inWidth
                    let out = target.baseAddress! + c * height * width
                    for y in 0..<height {
                        let top = plane + 2 * y * inWidth
                        let bottom = 2 * y + 1 < inHeight ? top + inWidth : top
                        for x in 0..<width {
                            let left = 2 * x, right = min(2 * x + 1, inWidth - 1)
                            out[y * width + x] = max(max(top[left], top[right]), max(bottom[left], bottom[right]))
                        }
                    }
                }
            }
        }
    }

    /// `fine += coarse` scaled up twice by repeating each value over a 2x2 block: the path by
    /// which a deeper, coarser level adds its context to a finer one.
    public static func addUpsampled(_ coarse: FeatureMap, to fine: inout FeatureMap) {
        precondition(coarse.channels == fine.channels)
        let height = fine.height, width = fine.width, coarseHeight = coarse.height, coarseWidth = coarse.width
        precondition((height + 1) / 2 <= coarseHeight && (width + 1) / 2 <= coarseWidth)
        coarse.storage.withUnsafeBufferPointer { source in
            fine.storage.withUnsafeMutableBufferPointer { target in
                for c in 0..<fine.channels {
                    let plane = source.baseAddress! + c * coarseHeight * coarseWidth
                    let out = target.baseAddress! + c * height * width
                    for y in 0..<height {
                        let row = plane + (y / 2) * coarseWidth, destination = out + y * width
                        for x in 0..<width { destination[x] += row[x / 2] }
                    }
                }
            }
        }
    }

    /// The larger of each pair of lanes. The standard library's `pointwiseMax` is generic and
    /// is not always inlined (a call a vector, measured at 30% of the detector's time); a
    /// comparison and a blend are.
    @inline(__always)
    static func maximum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: a .< b) }

    /// The smaller of each pair of lanes (see `maximum`).
    @inline(__always)
    static func minimum(_ a: Vector, _ b: Vector) -> Vector { a.replacing(with: b, where: b .< a) }

    @inline(__always)
    static func load(_ pointer: UnsafeMutablePointer<Float>) -> Vector {
        UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
    }

    @inline(__always)
    static func store(_ vector: Vector, _ pointer: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(pointer).storeBytes(of: vector, as: Vector.self)
    }

    /// `target[0..<count] += scale * source[0..<count]`.
    @inline(__always)
    static func multiplyAdd(_ scale: Float, _ source: UnsafeMutablePointer<Float>, into target: UnsafeMutablePointer<Float>,
                            count: Int) {
        var x = 0
        while x + lanes <= count {
            store(load(target + x) + load(source + x) * scale, target + x)
            x += lanes
        }
        while x < count {
            target[x] += source[x] * scale
            x += 1
        }
    }

    @inline(__always)
    static func rectify(_ values: UnsafeMutablePointer<Float>, count: Int) {
        var x = 0
        while x + lanes <= count {
            store(maximum(load(values + x), Vector()), values + x)
            x += lanes
        }
        while x < count {
            values[x] = max(values[x], 0)
            x += 1
        }
    }
}
