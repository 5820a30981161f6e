/// A weight matrix `[rows][inner]` packed once for `Kernels.matrixProduct`: panels of six rows
/// whose columns are interleaved (`[panel][k][6]`), so the micro-kernel reads its six weights of
/// each `k` from one place; the last panel is padded with zero rows.
public struct PackedMatrix: Sendable {
    public let rows: Int
    public let inner: Int
    let panels: [Float]

    /// Packs `values`, row-major `[rows][inner]` (a 1x1 convolution's `[out][in]`, a linear
    /// layer's `[out][in]`, a convolution's `[out][in][kh][kw]` read as `[out][in * kh * kw]`).
    public init(_ values: [Float], rows: Int, inner: Int) {
        precondition(rows > 0 && inner > 0 && values.count == rows * inner, "\(values.count) values for \(rows) x \(inner)")
        self.rows = rows
        self.inner = inner
        let height = Kernels.panelRows, count = (rows + height - 1) / height
        var panels = [Float](repeating: 0, count: count * height * inner)
        for row in 0..<rows {
            let panel = row / height, lane = row % height
            for k in 0..<inner { panels[(panel * inner + k) * height + lane] = values[row * inner + k] }
        }
        self.panels = panels
    }
}

extension Kernels {
    /// The micro-kernel's block: six rows of weights by sixteen columns (two AVX2 registers a
    /// row, twelve of sums, and the sixteen columns of one `k` loaded once for the six rows).
    static let panelRows = 6
    static let tileColumns = 16

    /// How many columns a packed block of the input holds: about 256 KB of the second-level
    /// cache (a quarter of this machine's 1 MB, shared by two cores), whole tiles, at most 512.
    static func blockColumns(inner: Int) -> Int {
        max(tileColumns, min(512, (1 << 16) / max(1, inner) / tileColumns * tileColumns))
    }

    /// The floats of workspace `matrixProduct` needs for an `inner`-deep product.
    public static func matrixProductWorkspace(inner: Int) -> Int { blockColumns(inner: inner) * inner }

    /// `output[o][p] = act(bias[o] + sum_k weights[o][k] * input[k][p]) + residual[o][p]` for
    /// every row `o` of `weights` and column `p < columns`: a 1x1 convolution (rows of the input
    /// and output are channel planes) or a linear layer over a sequence `[in][T]`. Rows of
    /// `input`, `output` and `residual` are their strides apart; `bias` and `residual` may be
    /// nil. The activation and the residual are applied in the registers as the sums are
    /// stored. `workspace` holds `matrixProductWorkspace(inner:)` floats; the input is copied
    /// there a block of columns at a time, tile by tile, so the micro-kernel reads it in order.
    public static func matrixProduct(
        _ weights: PackedMatrix, input: UnsafePointer<Float>, inputStride: Int, columns: Int, bias: UnsafePointer<Float>?,
        activation: Activation, residual: UnsafePointer<Float>? = nil, residualStride: Int = 0,
        output: UnsafeMutablePointer<Float>, outputStride: Int, workspace: UnsafeMutablePointer<Float>
    ) {
        let block = blockColumns(inner: weights.inner)
        var first = 0
        while first < columns {
            let count = min(block, columns - first)
            pack(input + first, stride: inputStride, depth: weights.inner, columns: count, into: workspace)
            multiplyPacked(weights, packed: workspace, columns: count, bias: bias, activation: activation,
                           residual: residual.map { $0 + first }, residualStride: residualStride,
                           output: Destination(base: output + first, rowStride: outputStride, tileStride: tileColumns))
            first += count
        }
    }

    /// Where a product's values go: row `o`, column `p` at `base + o * rowStride +
    /// (p / 16) * tileStride + p % 16`. Plain rows have `tileStride` 16; a packed block (the
    /// next product's input) has `rowStride` 16 and `tileStride` 16 times its depth.
    struct Destination {
        var base: UnsafeMutablePointer<Float>
        var rowStride: Int
        var tileStride: Int

        /// Whether the columns past the end of a tile may be written (a packed block's padding).
        var isPacked: Bool { rowStride == tileColumns }
    }

    /// Copies `columns` columns of `depth` rows into tiles `[tile][k][16]`, the last tile
    /// padded with zeros.
    static func pack(_ input: UnsafePointer<Float>, stride: Int, depth: Int, columns: Int,
                     into packed: UnsafeMutablePointer<Float>) {
        let whole = columns / tileColumns, rest = columns % tileColumns
        for k in 0..<depth {
            let row = input + k * stride
            for tile in 0..<whole {
                let source = UnsafeRawPointer(row + tile * tileColumns)
                UnsafeMutableRawPointer(packed + (tile * depth + k) * tileColumns)
                    .storeBytes(of: source.loadUnaligned(as: Vector.self), as: Vector.self)
            }
            if rest > 0 {
                let target = packed + (whole * depth + k) * tileColumns
                target.update(from: row + whole * tileColumns, count: rest)
                (target + rest).update(repeating: 0, count: tileColumns - rest)
            }
        }
    }

    /// Multiplies every panel of `weights` by a packed block of `columns` columns (tile by
    /// tile: one tile of the input stays in the first-level cache while all panels pass).
    static func multiplyPacked(
        _ weights: PackedMatrix, packed: UnsafePointer<Float>, columns: Int, bias: UnsafePointer<Float>?,
        activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int, output: Destination
    ) {
        let depth = weights.inner, rows = weights.rows
        let tiles = (columns + tileColumns - 1) / tileColumns
        weights.panels.withUnsafeBufferPointer { panels in
            for tile in 0..<tiles {
                let width = min(tileColumns, columns - tile * tileColumns)
                let b = packed + tile * depth * tileColumns
                var row = 0
                while row < rows {
                    microKernel(panels.baseAddress! + row * depth, b, depth: depth, firstRow: row,
                                rows: min(panelRows, rows - row), columns: width, bias: bias, activation: activation,
                                residual: residual.map { $0 + row * residualStride + tile * tileColumns },
                                residualStride: residualStride,
                                output: output.base + row * output.rowStride + tile * output.tileStride,
                                rowStride: output.rowStride, padded: output.isPacked)
                    row += panelRows
                }
            }
        }
    }

    /// Six rows by sixteen columns over the whole depth, then the epilogue: bias (the sums
    /// start from it), activation, residual, and the store of the `rows x columns` in range
    /// (all sixteen columns when `padded`).
    @inline(__always)
    static func microKernel(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, depth: Int, firstRow: Int, rows: Int, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: UnsafeMutablePointer<Float>, rowStride: Int, padded: Bool
    ) {
        func start(_ r: Int) -> Vector {
            guard let bias, r < rows else { return Vector() }
            return Vector(repeating: bias[firstRow + r])
        }
        var c0 = start(0), c1 = start(1), c2 = start(2), c3 = start(3), c4 = start(4), c5 = start(5)
        var pa = a, pb = UnsafeRawPointer(b)
        for _ in 0..<depth {
            let x = pb.loadUnaligned(as: Vector.self)
            c0 = c0.addingProduct(x, pa[0])
            c1 = c1.addingProduct(x, pa[1])
            c2 = c2.addingProduct(x, pa[2])
            c3 = c3.addingProduct(x, pa[3])
            c4 = c4.addingProduct(x, pa[4])
            c5 = c5.addingProduct(x, pa[5])
            pa += panelRows
            pb += tileColumns * MemoryLayout<Float>.stride
        }
        let full = padded || columns == tileColumns
        func finish(_ sum: Vector, _ r: Int) {
            guard r < rows else { return }
            var value = activation.apply(sum)
            let target = output + r * rowStride
            if let residual {
                let line = residual + r * residualStride
                if columns == tileColumns {
                    value += UnsafeRawPointer(line).loadUnaligned(as: Vector.self)
                } else {
                    for lane in 0..<columns { value[lane] += line[lane] }
                }
            }
            if full {
                UnsafeMutableRawPointer(target).storeBytes(of: value, as: Vector.self)
            } else {
                for lane in 0..<columns { target[lane] = value[lane] }
            }
        }
        finish(c0, 0)
        finish(c1, 1)
        finish(c2, 2)
        finish(c3, 3)
        finish(c4, 4)
        finish(c5, 5)
    }
}
