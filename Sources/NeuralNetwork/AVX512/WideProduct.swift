/// The packed matrix product's inner loop again, compiled for AVX-512 (`Package.swift`,
/// `wideVectorSettings`): up to twelve rows of weights (two panels of `GlossNeuralNetwork`'s
/// `PackedMatrix`) by thirty-two columns (two tiles of its packed input) over the whole depth,
/// in 24 of the 32 `zmm` registers; each step loads the two tiles' vectors once and multiplies
/// them by the twelve weights, broadcast from memory by the multiply-add itself.
///
/// Only the sums: the caller starts them (`start`, a row's bias or zero) and applies the
/// activation and the residual as it stores them, so the results are the AVX2 kernel's, sum
/// for sum (the same multiply-adds in the same order). Nothing here may run before the caller
/// has seen AVX-512 in the processor's flags (`KernelChoice`).
public enum WideProduct {
    public typealias Vector = SIMD16<Float>

    /// Twelve rows by thirty-two columns: the panels at `a` and `a + panelStride`, the tiles at
    /// `b` and `b + tileStride`. `start` holds twelve floats, `sums` receives `[12][32]`.
    @inline(never)
    public static func twelveByThirtyTwo(
        _ a: UnsafePointer<Float>, panelStride: Int, _ b: UnsafePointer<Float>, tileStride: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>
    ) {
        sum(a, panelStride: panelStride, b, tileStride: tileStride, depth: depth, start: start, sums: sums,
            twoPanels: true, twoTiles: true)
    }

    /// Twelve rows by the sixteen columns of one tile (`sums` is still `[12][32]`, its second
    /// half untouched).
    @inline(never)
    public static func twelveBySixteen(
        _ a: UnsafePointer<Float>, panelStride: Int, _ b: UnsafePointer<Float>, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>
    ) {
        sum(a, panelStride: panelStride, b, tileStride: 0, depth: depth, start: start, sums: sums,
            twoPanels: true, twoTiles: false)
    }

    /// The six rows of one panel by thirty-two columns (the first six rows of `sums`).
    @inline(never)
    public static func sixByThirtyTwo(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, tileStride: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>
    ) {
        sum(a, panelStride: 0, b, tileStride: tileStride, depth: depth, start: start, sums: sums,
            twoPanels: false, twoTiles: true)
    }

    /// Six rows by sixteen columns.
    @inline(never)
    public static func sixBySixteen(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, depth: Int, start: UnsafePointer<Float>,
        sums: UnsafeMutablePointer<Float>
    ) {
        sum(a, panelStride: 0, b, tileStride: 0, depth: depth, start: start, sums: sums, twoPanels: false, twoTiles: false)
    }

    /// The one loop the four entry points share; `twoPanels` and `twoTiles` are constants in
    /// each, so the unused registers and multiply-adds fold away.
    @inline(__always)
    static func sum(
        _ a: UnsafePointer<Float>, panelStride: Int, _ b: UnsafePointer<Float>, tileStride: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, twoPanels: Bool, twoTiles: Bool
    ) {
        let raw = UnsafeRawPointer(b), floats = MemoryLayout<Float>.stride
        sum(a, panelStride: panelStride, depth: depth, start: start, sums: sums, twoPanels: twoPanels, twoTiles: twoTiles,
            strided: false, second: tileStride * floats) { k in raw + k * 16 * floats }
    }

    /// The loop itself: step `k`'s columns start at `row(k)`, the second tile's `second` bytes
    /// on (`strided`: the even values of 32 there, and of the 32 after them); the packed
    /// block's, or the map's own (`DirectProduct`).
    @inline(__always)
    static func sum(
        _ a: UnsafePointer<Float>, panelStride: Int, depth: Int, start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>,
        twoPanels: Bool, twoTiles: Bool, strided: Bool, second: Int, row: (Int) -> UnsafeRawPointer
    ) {
        func load(_ pointer: UnsafeRawPointer, _ offset: Int) -> Vector {
            strided ? pointer.loadUnaligned(fromByteOffset: offset, as: SIMD32<Float>.self).evenHalf
                : pointer.loadUnaligned(fromByteOffset: offset, as: Vector.self)
        }
        func first(_ r: Int) -> Vector { r < 6 || twoPanels ? Vector(repeating: start[r]) : Vector() }
        // c: the first tile's sums, d: the second's; rows 0-5 from the first panel, 6-11 the second.
        var c0 = first(0), c1 = first(1), c2 = first(2), c3 = first(3), c4 = first(4), c5 = first(5)
        var c6 = first(6), c7 = first(7), c8 = first(8), c9 = first(9), c10 = first(10), c11 = first(11)
        var d0 = c0, d1 = c1, d2 = c2, d3 = c3, d4 = c4, d5 = c5
        var d6 = c6, d7 = c7, d8 = c8, d9 = c9, d10 = c10, d11 = c11
        var pa = a
        for k in 0..<depth {
            let pb = row(k)
            let x = load(pb, 0)
            addProducts(x, pa, &c0, &c1, &c2, &c3, &c4, &c5)
            if twoTiles {
                let y = load(pb, second)
                addProducts(y, pa, &d0, &d1, &d2, &d3, &d4, &d5)
                if twoPanels { addProducts(y, pa + panelStride, &d6, &d7, &d8, &d9, &d10, &d11) }
            }
            if twoPanels { addProducts(x, pa + panelStride, &c6, &c7, &c8, &c9, &c10, &c11) }
            pa += 6
        }
        let target = UnsafeMutableRawPointer(sums)
        func put(_ sum: Vector, row: Int, tile: Int) {
            target.storeBytes(of: sum, toByteOffset: (row * 32 + tile * 16) * MemoryLayout<Float>.stride, as: Vector.self)
        }
        put(c0, row: 0, tile: 0); put(c1, row: 1, tile: 0); put(c2, row: 2, tile: 0)
        put(c3, row: 3, tile: 0); put(c4, row: 4, tile: 0); put(c5, row: 5, tile: 0)
        if twoTiles {
            put(d0, row: 0, tile: 1); put(d1, row: 1, tile: 1); put(d2, row: 2, tile: 1)
            put(d3, row: 3, tile: 1); put(d4, row: 4, tile: 1); put(d5, row: 5, tile: 1)
        }
        if twoPanels {
            put(c6, row: 6, tile: 0); put(c7, row: 7, tile: 0); put(c8, row: 8, tile: 0)
            put(c9, row: 9, tile: 0); put(c10, row: 10, tile: 0); put(c11, row: 11, tile: 0)
            if twoTiles {
                put(d6, row: 6, tile: 1); put(d7, row: 7, tile: 1); put(d8, row: 8, tile: 1)
                put(d9, row: 9, tile: 1); put(d10, row: 10, tile: 1); put(d11, row: 11, tile: 1)
            }
        }
    }

    /// One step of the depth for one panel and one tile: the tile's vector `x` times each of
    /// the panel's six weights at `w`, added to the six rows' sums.
    @inline(__always)
    static func addProducts(
        _ x: Vector, _ w: UnsafePointer<Float>, _ s0: inout Vector, _ s1: inout Vector, _ s2: inout Vector,
        _ s3: inout Vector, _ s4: inout Vector, _ s5: inout Vector
    ) {
        s0 = s0.addingProduct(x, w[0])
        s1 = s1.addingProduct(x, w[1])
        s2 = s2.addingProduct(x, w[2])
        s3 = s3.addingProduct(x, w[3])
        s4 = s4.addingProduct(x, w[4])
        s5 = s5.addingProduct(x, w[5])
    }
}

/// The wide kernel's sums again, with the columns read from the feature map itself rather than
/// from a packed block: step `k` of the depth reads its sixteen (or thirty-two) columns at
/// `taps[k] + offset` (`strided`: every other value from `taps[k] + 2 * offset`), so a
/// convolution of stride 1 or 2 needs no gathering of its taps (each tap's row of the input,
/// shifted by the tap's column, is already the row of columns the product reads). The
/// multiply-adds are the packed kernel's, in the same order, so the sums are the same to the bit.
public enum DirectProduct {
    /// Twelve rows (the panels at `a` and `a + panelStride`) by thirty-two columns.
    @inline(never)
    public static func twelveByThirtyTwo(
        _ a: UnsafePointer<Float>, panelStride: Int, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, strided: Bool = false
    ) {
        sum(a, panelStride: panelStride, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
            twoPanels: true, twoTiles: true, strided: strided)
    }

    /// Twelve rows by sixteen columns.
    @inline(never)
    public static func twelveBySixteen(
        _ a: UnsafePointer<Float>, panelStride: Int, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, strided: Bool = false
    ) {
        sum(a, panelStride: panelStride, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
            twoPanels: true, twoTiles: false, strided: strided)
    }

    /// Six rows by thirty-two columns.
    @inline(never)
    public static func sixByThirtyTwo(
        _ a: UnsafePointer<Float>, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, strided: Bool = false
    ) {
        sum(a, panelStride: 0, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
            twoPanels: false, twoTiles: true, strided: strided)
    }

    /// Six rows by sixteen columns.
    @inline(never)
    public static func sixBySixteen(
        _ a: UnsafePointer<Float>, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, strided: Bool = false
    ) {
        sum(a, panelStride: 0, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
            twoPanels: false, twoTiles: false, strided: strided)
    }

    /// The wide kernel's loop reading through `taps`; both ways of reading are made constant in
    /// each entry point, so neither branch stays in the loop.
    @inline(__always)
    static func sum(
        _ a: UnsafePointer<Float>, panelStride: Int, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, depth: Int,
        start: UnsafePointer<Float>, sums: UnsafeMutablePointer<Float>, twoPanels: Bool, twoTiles: Bool, strided: Bool
    ) {
        let floats = MemoryLayout<Float>.stride
        // Strided, a tile's sixteen columns are the even values of the 32 from the tap's column,
        // the second tile's the even values of the next 32.
        if strided {
            WideProduct.sum(a, panelStride: panelStride, depth: depth, start: start, sums: sums, twoPanels: twoPanels,
                            twoTiles: twoTiles, strided: true, second: 32 * floats) { k in UnsafeRawPointer(taps[k] + 2 * offset) }
        } else {
            WideProduct.sum(a, panelStride: panelStride, depth: depth, start: start, sums: sums, twoPanels: twoPanels,
                            twoTiles: twoTiles, strided: false, second: 16 * floats) { k in UnsafeRawPointer(taps[k] + offset) }
        }
    }
}
