/// The generic kernels a program's layers run on: a blocked, packed matrix product
/// (`MatrixProduct.swift`: 1x1 convolutions, convolutions through a strip of gathered columns,
/// transposed convolutions, linear layers), depthwise
/// convolutions of any size, and the element-wise operations between them. Each works on raw
/// planes the caller owns; none allocates.
public enum Kernels {
    public typealias Vector = Layers.Vector
    static let lanes = Vector.scalarCount

    /// `out[o][p] = act(bias[o] + sum_k weights[o][k] * columns[k][p])` for `o < outputs`,
    /// `p < count`, with neither side packed: for products whose both sides change from run to
    /// run (attention's scores and values) and are too small to repay packing. Rows of
    /// `columns` are `columnStride` apart, rows of `out` `outputStride`; six outputs (then
    /// one) are summed at once in registers, one fused multiply-add a weight, so
    /// each column vector loaded serves six.
    public static func multiply(
        weights: UnsafePointer<Float>, columns: UnsafePointer<Float>, columnStride: Int, bias: UnsafePointer<Float>,
        into out: UnsafeMutablePointer<Float>, outputStride: Int, outputs: Int, inner: Int, count: Int,
        activation: Activation
    ) {
        let source = UnsafeRawPointer(columns), target = UnsafeMutableRawPointer(out)
        let size = MemoryLayout<Float>.stride
        var p = 0
        while p + lanes <= count {
            var o = 0
            // Six outputs by one vector: twelve AVX2 registers of sums, enough independent
            // FMAs to cover their latency, the column vector and a weight in the other three.
            while o + 6 <= outputs {
                let w0 = weights + o * inner, w1 = w0 + inner, w2 = w1 + inner, w3 = w2 + inner
                let w4 = w3 + inner, w5 = w4 + inner
                var a0 = Vector(repeating: bias[o]), a1 = Vector(repeating: bias[o + 1])
                var a2 = Vector(repeating: bias[o + 2]), a3 = Vector(repeating: bias[o + 3])
                var a4 = Vector(repeating: bias[o + 4]), a5 = Vector(repeating: bias[o + 5])
                var offset = p * size
                for k in 0..<inner {
                    let x = source.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                    a0 = a0.addingProduct(x, w0[k])
                    a1 = a1.addingProduct(x, w1[k])
                    a2 = a2.addingProduct(x, w2[k])
                    a3 = a3.addingProduct(x, w3[k])
                    a4 = a4.addingProduct(x, w4[k])
                    a5 = a5.addingProduct(x, w5[k])
                    offset += columnStride * size
                }
                let first = (o * outputStride + p) * size, step = outputStride * size
                target.storeBytes(of: activation.apply(a0), toByteOffset: first, as: Vector.self)
                target.storeBytes(of: activation.apply(a1), toByteOffset: first + step, as: Vector.self)
                target.storeBytes(of: activation.apply(a2), toByteOffset: first + 2 * step, as: Vector.self)
                target.storeBytes(of: activation.apply(a3), toByteOffset: first + 3 * step, as: Vector.self)
                target.storeBytes(of: activation.apply(a4), toByteOffset: first + 4 * step, as: Vector.self)
                target.storeBytes(of: activation.apply(a5), toByteOffset: first + 5 * step, as: Vector.self)
                o += 6
            }
            // The rest one at a time.
            while o < outputs {
                let w = weights + o * inner
                var a = Vector(repeating: bias[o])
                for k in 0..<inner {
                    a = a.addingProduct(source.loadUnaligned(fromByteOffset: (k * columnStride + p) * size, as: Vector.self), w[k])
                }
                target.storeBytes(of: activation.apply(a), toByteOffset: (o * outputStride + p) * size, as: Vector.self)
                o += 1
            }
            p += lanes
        }
        // The last columns, fewer than a vector.
        while p < count {
            for o in 0..<outputs {
                let w = weights + o * inner
                var sum = bias[o]
                for k in 0..<inner { sum = sum.addingProduct(columns[k * columnStride + p], w[k]) }
                out[o * outputStride + p] = activation.apply(sum)
            }
            p += 1
        }
    }

    /// Gathers the taps of output row `row`, columns `firstColumn..<firstColumn + columns`, of
    /// a convolution straight into the matrix product's packed tiles `[tile][k][16]` of depth
    /// `depth`: tap `(c, ky, kx)` is row `firstRow + (c * kh + ky) * kw + kx`, zero outside the
    /// input and past the last column. A `pooled` input is read through a 2x2 max pool of
    /// stride 1, `SAME_UPPER` (each value the largest of it and its right and lower neighbours).
    static func gatherPacked(
        _ input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        kernel: (Int, Int), stride: (Int, Int), padding: (top: Int, left: Int),
        row: Int, firstColumn: Int, columns: Int, depth: Int, pooled: Bool = false, firstRow: Int,
        into packed: UnsafeMutablePointer<Float>
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns
        for c in 0..<channels {
            let plane = input + c * height * width
            for ky in 0..<kernel.0 {
                let y = row * stride.0 + ky - padding.top
                for kx in 0..<kernel.1 {
                    let k = firstRow + (c * kernel.0 + ky) * kernel.1 + kx, shift = kx - padding.left
                    for tile in 0..<tiles {
                        let target = packed + (tile * depth + k) * tileColumns
                        guard y >= 0 && y < height else {
                            target.update(repeating: 0, count: tileColumns)
                            continue
                        }
                        let line = plane + y * width, x = firstColumn + tile * tileColumns
                        let count = min(tileColumns, columns - tile * tileColumns), start = x * stride.1 + shift
                        if pooled {
                            // The 2x2 window's bottom row and right column, clamped: past the
                            // edge the window is what is left of it.
                            let below = y + 1 < height ? line + width : line
                            if stride.1 == 2 && count == tileColumns && start >= 0 && start + 2 * tileColumns <= width {
                                // A whole tile inside the row: each lane's window is the even
                                // and odd values of 32 in its two rows (the right column stays
                                // inside the row, as the last lane's is start + 31).
                                let top = UnsafeRawPointer(line + start).loadUnaligned(as: SIMD32<Float>.self)
                                let bottom = UnsafeRawPointer(below + start).loadUnaligned(as: SIMD32<Float>.self)
                                Layers.store(VectorMath.maximum(VectorMath.maximum(top.evenHalf, top.oddHalf),
                                                            VectorMath.maximum(bottom.evenHalf, bottom.oddHalf)), target)
                                continue
                            }
                            if stride.1 == 1 && count == tileColumns && start >= 0 && start + tileColumns < width {
                                Layers.store(VectorMath.maximum(VectorMath.maximum(Layers.load(line + start), Layers.load(line + start + 1)),
                                                            VectorMath.maximum(Layers.load(below + start), Layers.load(below + start + 1))),
                                             target)
                                continue
                            }
                            for lane in 0..<tileColumns {
                                let sx = start + lane * stride.1
                                guard lane < count && sx >= 0 && sx < width else {
                                    target[lane] = 0
                                    continue
                                }
                                let right = min(sx + 1, width - 1)
                                target[lane] = max(max(line[sx], line[right]), max(below[sx], below[right]))
                            }
                        } else if stride.1 == 1 && count == tileColumns && start >= 0 && start + tileColumns <= width {
                            Layers.store(Layers.load(line + start), target)
                        } else if stride.1 == 2 && count == tileColumns && start >= 0 && start + 2 * tileColumns <= width {
                            // Every other value of 32: the even lanes.
                            let pair = UnsafeRawPointer(line + start).loadUnaligned(as: SIMD32<Float>.self)
                            Layers.store(pair.evenHalf, target)
                        } else {
                            for lane in 0..<tileColumns {
                                let sx = start + lane * stride.1
                                target[lane] = lane < count && sx >= 0 && sx < width ? line[sx] : 0
                            }
                        }
                    }
                }
            }
        }
    }

    /// One row of a 2x2 max pool of stride 1 (`SAME_UPPER`): each value the largest of it, its
    /// right neighbour and the two below them (`below` is the row itself at the map's last
    /// row); the last column's window is its own column.
    static func maxPoolRow(_ line: UnsafePointer<Float>, below: UnsafePointer<Float>, width: Int,
                           into out: UnsafeMutablePointer<Float>) {
        var x = 0
        while x + lanes < width {
            Layers.store(VectorMath.maximum(VectorMath.maximum(Layers.load(line + x), Layers.load(line + x + 1)),
                                        VectorMath.maximum(Layers.load(below + x), Layers.load(below + x + 1))), out + x)
            x += lanes
        }
        while x < width - 1 {
            out[x] = max(max(line[x], line[x + 1]), max(below[x], below[x + 1]))
            x += 1
        }
        if width > 0 { out[width - 1] = max(line[width - 1], below[width - 1]) }
    }

    /// A depthwise convolution: each channel by its own `kh x kw` kernel, any stride and
    /// padding. Each plane is copied once into a zero-bordered scratch plane, so the loops over
    /// taps have no edge cases; with stride 1 they run along rows in vector steps.
    public static func depthwise(
        _ input: UnsafePointer<Float>, channels: Int, height: Int, width: Int,
        weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation,
        into out: UnsafeMutablePointer<Float>, outHeight: Int, outWidth: Int, scratch: UnsafeMutablePointer<Float>
    ) {
        let paddedWidth = width + padding.left + padding.right, paddedHeight = height + padding.top + padding.bottom
        scratch.update(repeating: 0, count: paddedWidth * paddedHeight)
        let taps = kernel.0 * kernel.1
        for c in 0..<channels {
            let plane = input + c * height * width
            for y in 0..<height {
                (scratch + (y + padding.top) * paddedWidth + padding.left).update(from: plane + y * width, count: width)
            }
            let k = weights + c * taps
            let target = out + c * outHeight * outWidth
            for oy in 0..<outHeight {
                let destination = target + oy * outWidth
                if stride.1 == 1 {
                    // Two vectors of outputs at a time, summed over every tap in registers,
                    // activated and stored once.
                    let top = scratch + oy * stride.0 * paddedWidth
                    var x = 0
                    while x + 2 * lanes <= outWidth {
                        var a = Vector(repeating: bias[c]), b = a
                        for ky in 0..<kernel.0 {
                            let row = top + ky * paddedWidth + x, taps = k + ky * kernel.1
                            for kx in 0..<kernel.1 {
                                a = a.addingProduct(Layers.load(row + kx), taps[kx])
                                b = b.addingProduct(Layers.load(row + kx + lanes), taps[kx])
                            }
                        }
                        Layers.store(activation.apply(a), destination + x)
                        Layers.store(activation.apply(b), destination + x + lanes)
                        x += 2 * lanes
                    }
                    // The rest: vectors, the last one overlapping the ones before (it writes the
                    // same values again), or single pixels in a row narrower than a vector.
                    while x < outWidth {
                        if outWidth >= lanes {
                            let at = min(x, outWidth - lanes)
                            var a = Vector(repeating: bias[c])
                            for ky in 0..<kernel.0 {
                                let row = top + ky * paddedWidth + at, taps = k + ky * kernel.1
                                for kx in 0..<kernel.1 { a = a.addingProduct(Layers.load(row + kx), taps[kx]) }
                            }
                            Layers.store(activation.apply(a), destination + at)
                            x = at + lanes
                        } else {
                            var sum = bias[c]
                            for ky in 0..<kernel.0 {
                                for kx in 0..<kernel.1 { sum += k[ky * kernel.1 + kx] * top[ky * paddedWidth + x + kx] }
                            }
                            destination[x] = activation.apply(sum)
                            x += 1
                        }
                    }
                } else {
                    var ox = 0
                    if stride.1 == 2 {
                        // Sixteen outputs at a time: the even values of 32 from each tap's
                        // column (the read stays inside the scratch's row), multiplied and
                        // added as the single pixels below are, in the same order.
                        while ox * 2 + kernel.1 - 1 + 2 * lanes <= paddedWidth && ox + lanes <= outWidth {
                            var a = Vector(repeating: bias[c])
                            for ky in 0..<kernel.0 {
                                let row = scratch + (oy * stride.0 + ky) * paddedWidth + ox * 2, taps = k + ky * kernel.1
                                for kx in 0..<kernel.1 {
                                    let pair = UnsafeRawPointer(row + kx).loadUnaligned(as: SIMD32<Float>.self)
                                    a = a + pair.evenHalf * taps[kx]
                                }
                            }
                            Layers.store(a, destination + ox)
                            ox += lanes
                        }
                    }
                    for ox in ox..<outWidth {
                        var sum = bias[c]
                        for ky in 0..<kernel.0 {
                            let row = scratch + (oy * stride.0 + ky) * paddedWidth + ox * stride.1
                            for kx in 0..<kernel.1 { sum += k[ky * kernel.1 + kx] * row[kx] }
                        }
                        destination[ox] = sum
                    }
                    activation.apply(to: destination, count: outWidth)
                }
            }
            // The rows this channel wrote into the scratch plane; its border stays zero.
            for y in 0..<height {
                (scratch + (y + padding.top) * paddedWidth + padding.left).update(repeating: 0, count: width)
            }
        }
    }
}
