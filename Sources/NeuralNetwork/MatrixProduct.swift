import CNeuralKernels
import GlossNeuralKernelChoice
import GlossNeuralKernelsAVX512

/// A weight matrix `[rows][inner]` packed once for `Kernels.matrixProduct`: panels of six rows
/// whose columns are interleaved (`[panel][k][6]`), so the micro-kernel reads its six weights of
/// each `k` from one place; the last panel is padded with zero rows. Where the products run in
/// bf16 (`KernelSet.amx`), the weights are also kept rounded to bf16 as AMX's tiles read them.
public struct PackedMatrix: Sendable {
    public let rows: Int
    public let inner: Int
    let panels: [Float]
    /// The weights in bf16 (nil when the products stay fp32): tiles of sixteen rows by chunks
    /// of 32 of the depth, `[rowTile][chunk][16][32]`, rows and depth padded with zeros.
    private(set) var tiles: [UInt16]?
    /// The weights in 16-bit integers (nil when the products stay fp32).
    private(set) var integers: IntegerPanels?

    /// Packs `values`, row-major `[rows][inner]` (a 1x1 convolution's `[out][in]`, a linear
    /// layer's `[out][in]`, a convolution's `[out][in][kh][kw]` read as `[out][in * kh * kw]`);
    /// `products` other than fp32 keeps a copy for AMX's bf16 product or AVX2's 16-bit one as
    /// well (by default where the process runs it).
    public init(_ values: [Float], rows: Int, inner: Int, products: Products = KernelChoice.current.kernels.products) {
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
        tiles = products == .bf16 ? Self.bf16Tiles(values, rows: rows, inner: inner) : nil
        integers = products == .int16 ? IntegerPanels(values, rows: rows, inner: inner) : nil
    }

    /// Whether `kernels` multiply this matrix reduced: in bf16 on AMX where it keeps tiles, in
    /// 16-bit integers with the integer kernels where it keeps them (`multiplyPacked`).
    func isReduced(on kernels: KernelSet) -> Bool {
        switch kernels {
        case .amx: tiles != nil
        case .int16, .vnni: integers != nil
        case .avx2, .avx512: false
        }
    }

    /// The same matrix in fp32 alone: its panels shared, not copied, and no reduced copy.
    var fp32: PackedMatrix {
        var matrix = self
        matrix.tiles = nil
        matrix.integers = nil
        return matrix
    }

    /// The chunks of 32 of the depth AMX's product runs over.
    var chunks: Int { (inner + Kernels.tileDepth - 1) / Kernels.tileDepth }

    /// `values` rounded to bf16 in `tiles`' layout.
    static func bf16Tiles(_ values: [Float], rows: Int, inner: Int) -> [UInt16] {
        let tileRows = Kernels.tileRows, depth = Kernels.tileDepth
        let rowTiles = (rows + tileRows - 1) / tileRows, chunks = (inner + depth - 1) / depth
        var tiles = [UInt16](repeating: 0, count: rowTiles * chunks * tileRows * depth)
        for row in 0..<rows {
            let rowTile = row / tileRows, lane = row % tileRows
            for k in 0..<inner {
                tiles[((rowTile * chunks + k / depth) * tileRows + lane) * depth + k % depth] = bfloat16(values[row * inner + k])
            }
        }
        return tiles
    }

    /// The bf16 nearest `value` (ties to even), as VCVTNEPS2BF16 rounds the activations.
    static func bfloat16(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        if value.isNaN { return UInt16(bits >> 16) | 0x40 }
        return UInt16((bits &+ 0x7FFF &+ ((bits >> 16) & 1)) >> 16)
    }
}

/// A weight matrix in 16-bit integers for AVX2's product (`Kernels.multiplyIntegers`): each
/// row scaled on its own, in panels of six rows whose pairs of the depth are interleaved
/// (`[panel][pair][6]`, row `r`'s weights `2j` and `2j + 1` as the low and high halves of one
/// `Int32`, as `VPMADDWD` multiplies them), the last pair and panel padded with zeros.
///
/// The activations are scaled column by column to at most `activationLimit` in magnitude
/// (`gloss_int16_pack`), and each row's integers are as large as keeps every sum of the row
/// within 32 bits: `activationLimit * sum |w_k|` under 2^31, so no sum can wrap, and within
/// that at most 32,767. The row's scale is then its largest magnitude over its largest integer.
struct IntegerPanels: Sendable {
    let values: [Int32]
    /// Each row's scale: the float one of its integers stands for (0 for a row of zeros and
    /// the padding rows).
    let scales: [Float]
    let pairs: Int

    /// The largest integer an activation becomes: 2^11 - 1. The recogniser's deepest matrices
    /// (1x1 convolutions 768 deep) sum magnitudes about 165 times their largest weight, which
    /// leaves their rows 4,800 to 6,400 as the largest integer (12 to 13 bits); half of its 61
    /// matrices keep the full 32,767 (the ONNX weights' L1 over largest magnitude, row by row).
    static let activationLimit: Float = 2047

    /// `weights` row-major `[rows][inner]`. Each row's largest integer is `limit` where given
    /// (the caller keeps the sums within 32 bits: `IntegerColumns`), else the largest that
    /// keeps its sums with activations of at most `activationLimit` so.
    init(_ weights: [Float], rows: Int, inner: Int, limit fixed: Float? = nil) {
        let height = Kernels.panelRows, panels = (rows + height - 1) / height, pairs = (inner + 1) / 2
        self.pairs = pairs
        var values = [Int32](repeating: 0, count: panels * pairs * height)
        var scales = [Float](repeating: 0, count: panels * height)
        let budget = Double(Int32.max) / Double(Self.activationLimit)
        var quantized = [Int32](repeating: 0, count: 2 * pairs)
        weights.withUnsafeBufferPointer { all in
            for row in 0..<rows {
                let slice = UnsafeBufferPointer(rebasing: all[(row * inner)..<((row + 1) * inner)])
                var top: Float = 0, total = 0.0
                for weight in slice {
                    top = max(top, abs(weight))
                    total += Double(abs(weight))
                }
                guard top > 0 else { continue }
                // Rounding adds at most half a unit a weight to the sum of magnitudes.
                var limit = fixed.map(Double.init) ?? min(32767, ((budget - Double(inner) / 2) / (total / Double(top))).rounded(.down))
                while true {
                    // In doubles: a row whose largest weight is subnormal has an inverse past float's range.
                    let inverse = limit / Double(top)
                    var magnitudes = 0
                    for k in 0..<inner {
                        quantized[k] = Int32((Double(slice[k]) * inverse).rounded())
                        magnitudes += Int(quantized[k].magnitude)
                    }
                    if fixed != nil || Double(magnitudes) <= budget { break }
                    limit = (limit * 0.99).rounded(.down)
                }
                scales[row] = Float(Double(top) / limit)
                let panel = row / height, lane = row % height
                for pair in 0..<pairs {
                    let low = UInt32(UInt16(truncatingIfNeeded: quantized[2 * pair]))
                    let high = UInt32(UInt16(truncatingIfNeeded: quantized[2 * pair + 1]))
                    values[(panel * pairs + pair) * height + lane] = Int32(bitPattern: low | high << 16)
                }
            }
        }
        self.values = values
        self.scales = scales
    }
}

/// The recogniser's last layer in 16-bit integers (`Layers.linearSoftmaxRows`), whose rows are a
/// line's tokens, made per run, and whose columns are the classes: its panels (`[o / 16][c][o %
/// 16]`, `Layers.panels`) in `gloss_int16_pack`'s layout, each class scaled so its largest
/// magnitude is `limit`. The tokens are scaled to the same limit (`IntegerPanels(limit:)`),
/// which keeps `inner` products of the two within 32 bits.
struct IntegerColumns: Sendable {
    let values: [Int16]
    let scales: [Float]
    let limit: Float

    init(panels: [Float], inner: Int, outputs: Int) {
        let limit = Self.limit(inner: inner)
        let tiles = (outputs + Kernels.tileColumns - 1) / Kernels.tileColumns, pairs = (inner + 1) / 2
        var values = [Int16](repeating: 0, count: tiles * pairs * 2 * Kernels.tileColumns)
        var scales = [Float](repeating: 0, count: tiles * Kernels.tileColumns)
        panels.withUnsafeBufferPointer { source in
            values.withUnsafeMutableBufferPointer { target in
                scales.withUnsafeMutableBufferPointer { scale in
                    gloss_int16_pack(source.baseAddress!, Int32(inner), Int32(outputs), limit, target.baseAddress!, scale.baseAddress!)
                }
            }
        }
        self.values = values
        self.scales = scales
        self.limit = limit
    }

    /// The largest integer of a weight and of a token: `limit^2 * inner` under 2^31 (4,230
    /// for the recogniser's 120 features), at most 32,767.
    static func limit(inner: Int) -> Float {
        Float(min(32767, (Double(Int32.max) / Double(max(1, inner))).squareRoot().rounded(.down)))
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
    /// `kernels` is the process's choice (`KernelChoice`) but for tests comparing the two.
    public static func matrixProduct(
        _ weights: PackedMatrix, input: UnsafePointer<Float>, inputStride: Int, columns: Int, bias: UnsafePointer<Float>?,
        activation: Activation, residual: UnsafePointer<Float>? = nil, residualStride: Int = 0,
        output: UnsafeMutablePointer<Float>, outputStride: Int, workspace: UnsafeMutablePointer<Float>,
        kernels: KernelSet = KernelChoice.current.kernels
    ) {
        let block = blockColumns(inner: weights.inner)
        var first = 0
        while first < columns {
            let count = min(block, columns - first)
            pack(input + first, stride: inputStride, depth: weights.inner, columns: count, into: workspace)
            multiplyPacked(weights, packed: workspace, columns: count, bias: bias, activation: activation,
                           residual: residual.map { $0 + first }, residualStride: residualStride,
                           output: Destination(base: output + first, rowStride: outputStride, tileStride: tileColumns),
                           kernels: kernels)
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
    /// tile: one tile of the input stays in the first-level cache while all panels pass), with
    /// the AVX2 micro-kernel or, where the processor has AVX-512, the wide one (`kernels`); on
    /// AMX, with bf16 tiles (`multiplyTiles`) when `weights` holds them, else the wide kernel.
    static func multiplyPacked(
        _ weights: PackedMatrix, packed: UnsafePointer<Float>, columns: Int, bias: UnsafePointer<Float>?,
        activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int, output: Destination,
        kernels: KernelSet = KernelChoice.current.kernels
    ) {
        if kernels.products == .int16, let integers = weights.integers {
            multiplyIntegers(integers, rows: weights.rows, depth: weights.inner, packed: packed, columns: columns, bias: bias,
                             activation: activation, residual: residual, residualStride: residualStride, output: output,
                             kernels: kernels)
            return
        }
        if kernels == .amx, let tiles = weights.tiles {
            tiles.withUnsafeBufferPointer { a in
                multiplyTiles(a.baseAddress!, rows: weights.rows, depth: weights.inner, chunks: weights.chunks, packed: packed,
                              columns: columns, bias: bias, activation: activation, residual: residual,
                              residualStride: residualStride, output: output)
            }
            return
        }
        weights.panels.withUnsafeBufferPointer { panels in
            multiplyPanels(panels.baseAddress!, rows: weights.rows, depth: weights.inner, packed: packed, columns: columns,
                           bias: bias, activation: activation, residual: residual, residualStride: residualStride,
                           output: output, kernels: kernels)
        }
    }

    /// `multiplyPacked` with the weights' panels (`[panel][k][6]`, `rows` rows, padded with zero
    /// rows to whole panels) where the caller packed them: `linearSoftmaxRows` packs a line's
    /// tokens, run by run.
    static func multiplyPanels(
        _ panels: UnsafePointer<Float>, rows: Int, depth: Int, packed: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination, kernels: KernelSet = KernelChoice.current.kernels
    ) {
        switch kernels {
        case .avx2, .int16:
            multiplyPanelsAVX2(panels, rows: rows, depth: depth, packed: packed, columns: columns, bias: bias,
                               activation: activation, residual: residual, residualStride: residualStride, output: output)
        case .avx512, .amx, .vnni:
            multiplyPanelsWide(panels, rows: rows, depth: depth, packed: packed, columns: columns, bias: bias,
                               activation: activation, residual: residual, residualStride: residualStride, output: output)
        }
    }

    /// `multiplyPanels` on AVX2: the six-by-sixteen micro-kernel over every panel, tile by tile.
    static func multiplyPanelsAVX2(
        _ panels: UnsafePointer<Float>, rows: Int, depth: Int, packed: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns
        for tile in 0..<tiles {
            let width = min(tileColumns, columns - tile * tileColumns)
            let b = packed + tile * depth * tileColumns
            var row = 0
            while row < rows {
                microKernel(panels + row * depth, b, depth: depth, firstRow: row,
                            rows: min(panelRows, rows - row), columns: width, bias: bias, activation: activation,
                            residual: residual.map { $0 + row * residualStride + tile * tileColumns },
                            residualStride: residualStride,
                            output: output.base + row * output.rowStride + tile * output.tileStride,
                            rowStride: output.rowStride, padded: output.isPacked)
                row += panelRows
            }
        }
    }

    /// The wide micro-kernel's block: two panels by two tiles, twelve rows by 32 columns.
    static let widePanels = 2
    static let wideTiles = 2

    /// `multiplyPanels` on AVX-512: two tiles at a time (128 bytes a step of the depth, in the
    /// first-level cache up to a depth of about 380) while every pair of panels passes; the
    /// wide kernel (`WideProduct`) sums twelve rows by 32 columns into `sums`, and they are
    /// stored as the AVX2 kernel stores its own (`store`), so the two give the same values.
    static func multiplyPanelsWide(
        _ panels: UnsafePointer<Float>, rows: Int, depth: Int, packed: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns
        let blockRows = widePanels * panelRows, blockColumns = wideTiles * tileColumns
        withUnsafeTemporaryAllocation(of: Float.self, capacity: blockRows * (1 + blockColumns)) { buffer in
            let start = buffer.baseAddress!, sums = start + blockRows
            var tile = 0
            while tile < tiles {
                let pair = tiles - tile >= wideTiles
                let b = packed + tile * depth * tileColumns
                var row = 0
                while row < rows {
                    let count = min(blockRows, rows - row), a = panels + row * depth
                    for r in 0..<blockRows { start[r] = r < count ? bias?[row + r] ?? 0 : 0 }
                    switch (count > panelRows, pair) {
                    case (true, true):
                        WideProduct.twelveByThirtyTwo(a, panelStride: panelRows * depth, b, tileStride: depth * tileColumns,
                                                      depth: depth, start: start, sums: sums)
                    case (true, false):
                        WideProduct.twelveBySixteen(a, panelStride: panelRows * depth, b, depth: depth, start: start, sums: sums)
                    case (false, true):
                        WideProduct.sixByThirtyTwo(a, b, tileStride: depth * tileColumns, depth: depth, start: start, sums: sums)
                    case (false, false):
                        WideProduct.sixBySixteen(a, b, depth: depth, start: start, sums: sums)
                    }
                    for t in 0..<(pair ? wideTiles : 1) {
                        let column = (tile + t) * tileColumns, width = min(tileColumns, columns - column)
                        for r in 0..<count {
                            Epilogue.store(Layers.load(sums + r * blockColumns + t * tileColumns), columns: width,
                                  activation: activation,
                                  residual: residual.map { $0 + (row + r) * residualStride + column },
                                  output: output.base + (row + r) * output.rowStride + (tile + t) * output.tileStride,
                                  padded: output.isPacked)
                        }
                    }
                    row += blockRows
                }
                tile += pair ? wideTiles : 1
            }
        }
    }

    /// `multiplyPanels` with the columns read where they lie: `columns` (16 or 32) columns,
    /// step `k` of the depth at `taps[k] + offset` (`strided`: every other value from
    /// `taps[k] + 2 * offset`), into plain rows of `output`; the wide kernel's sums
    /// (`DirectProduct`), or on AVX2 the six-by-sixteen micro-kernel's (`multiplyDirectAVX2`).
    /// The sums and their stores are the packed kernels', so the values are too.
    static func multiplyDirect(
        _ weights: PackedMatrix, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, columns: Int, strided: Bool = false,
        bias: UnsafePointer<Float>?, activation: Activation, output: Destination, kernels: KernelSet = KernelChoice.current.kernels
    ) {
        precondition(columns == tileColumns || columns == wideTiles * tileColumns)
        if kernels.fp32 == .avx2 {
            multiplyDirectAVX2(weights, taps: taps, offset: offset, columns: columns, strided: strided, bias: bias,
                               activation: activation, output: output)
            return
        }
        let rows = weights.rows, depth = weights.inner
        let blockRows = widePanels * panelRows, blockColumns = wideTiles * tileColumns, pair = columns == blockColumns
        weights.panels.withUnsafeBufferPointer { panels in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: blockRows * (1 + blockColumns)) { buffer in
                let start = buffer.baseAddress!, sums = start + blockRows
                var row = 0
                while row < rows {
                    let count = min(blockRows, rows - row), a = panels.baseAddress! + row * depth
                    for r in 0..<blockRows { start[r] = r < count ? bias?[row + r] ?? 0 : 0 }
                    switch (count > panelRows, pair) {
                    case (true, true):
                        DirectProduct.twelveByThirtyTwo(a, panelStride: panelRows * depth, taps: taps, offset: offset, depth: depth,
                                                        start: start, sums: sums, strided: strided)
                    case (true, false):
                        DirectProduct.twelveBySixteen(a, panelStride: panelRows * depth, taps: taps, offset: offset, depth: depth,
                                                      start: start, sums: sums, strided: strided)
                    case (false, true):
                        DirectProduct.sixByThirtyTwo(a, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
                                                     strided: strided)
                    case (false, false):
                        DirectProduct.sixBySixteen(a, taps: taps, offset: offset, depth: depth, start: start, sums: sums,
                                                   strided: strided)
                    }
                    for t in 0..<(pair ? wideTiles : 1) {
                        for r in 0..<count {
                            Epilogue.store(Layers.load(sums + r * blockColumns + t * tileColumns), columns: tileColumns,
                                  activation: activation, residual: nil,
                                  output: output.base + (row + r) * output.rowStride + t * output.tileStride, padded: false)
                        }
                    }
                    row += blockRows
                }
            }
        }
    }

    /// `multiplyDirect` on AVX2: the six-by-sixteen micro-kernel over every panel, a tile of
    /// sixteen columns at a time, reading step `k`'s columns at `taps[k] + offset` (`strided`:
    /// the even values of the 32 at `taps[k] + 2 * offset`) where `multiplyPanelsAVX2` reads
    /// the packed tile's row: the same multiply-adds in the same order.
    static func multiplyDirectAVX2(
        _ weights: PackedMatrix, taps: UnsafePointer<UnsafePointer<Float>>, offset: Int, columns: Int, strided: Bool,
        bias: UnsafePointer<Float>?, activation: Activation, output: Destination
    ) {
        let rows = weights.rows, depth = weights.inner
        weights.panels.withUnsafeBufferPointer { panels in
            for tile in 0..<(columns / tileColumns) {
                let column = offset + tile * tileColumns
                var row = 0
                while row < rows {
                    let a = panels.baseAddress! + row * depth, count = min(panelRows, rows - row)
                    let target = output.base + row * output.rowStride + tile * output.tileStride
                    if strided {
                        microKernel(a, depth: depth, strided: true, firstRow: row, rows: count, columns: tileColumns,
                                    bias: bias, activation: activation, residual: nil, residualStride: 0, output: target,
                                    rowStride: output.rowStride, padded: false) { k in UnsafeRawPointer(taps[k] + 2 * column) }
                    } else {
                        microKernel(a, depth: depth, strided: false, firstRow: row, rows: count, columns: tileColumns,
                                    bias: bias, activation: activation, residual: nil, residualStride: 0, output: target,
                                    rowStride: output.rowStride, padded: false) { k in UnsafeRawPointer(taps[k] + column) }
                    }
                    row += panelRows
                }
            }
        }
    }

    /// `multiplyPacked` in 16-bit integers: the packed block scaled to integers column by column
    /// into the thread's buffer (`gloss_int16_pack`), then `multiplyIntegerBlocks`.
    static func multiplyIntegers(
        _ weights: IntegerPanels, rows: Int, depth: Int, packed: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination, kernels: KernelSet
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns, pairs = weights.pairs, tileSize = pairs * 2 * tileColumns
        // The integers, then the columns' scales (two 16-bit places a float).
        guard let buffer = gloss_block_buffer(tiles * tileSize + 2 * tiles * tileColumns) else {
            fatalError("no memory for a block of 16-bit integers")
        }
        let raw = UnsafeMutableRawPointer(buffer)
        let b = raw.bindMemory(to: Int16.self, capacity: tiles * tileSize)
        let scales = (raw + 2 * tiles * tileSize).bindMemory(to: Float.self, capacity: tiles * tileColumns)
        gloss_int16_pack(packed, Int32(depth), Int32(columns), IntegerPanels.activationLimit, b, scales)
        multiplyIntegerBlocks(weights, rows: rows, integers: b, scales: scales, columns: columns, bias: bias,
                              activation: activation, residual: residual, residualStride: residualStride, output: output,
                              kernels: kernels)
    }

    /// How many tiles of sixteen columns VNNI's integer kernel sums at once
    /// (`gloss_int16_wide_kernel`, 24 registers of sums); AVX2's (`gloss_int16_kernel`) sums one.
    static let wideIntegerTiles = 4

    /// The product of `weights` (`rows` rows) by `columns` columns of 16-bit integers in
    /// `gloss_int16_pack`'s layout (`b`, with each column's scale in `scales`): every panel over
    /// `wideIntegerTiles` tiles of sixteen columns at a time on VNNI, one on AVX2 (they stay in
    /// the cache while the panels pass), the sums scaled back to floats by their row's and
    /// column's scales and stored with the bias, activation and residual as the other kernels
    /// store. The two integer kernels give the same sums, so the same floats.
    static func multiplyIntegerBlocks(
        _ weights: IntegerPanels, rows: Int, integers b: UnsafePointer<Int16>, scales: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination, kernels: KernelSet
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns, pairs = weights.pairs, tileSize = pairs * 2 * tileColumns
        // VNNI's kernel, and the stores compiled for AVX-512 after it; or AVX2's, and the stores
        // compiled here.
        let wide = kernels == .vnni, group = wide ? wideIntegerTiles : 1, sumsStride = group * tileColumns
        let store = wide ? WideStores.storeIntegers : Epilogue.storeIntegers
        weights.values.withUnsafeBufferPointer { a in
            weights.scales.withUnsafeBufferPointer { rowScales in
                withUnsafeTemporaryAllocation(of: Int32.self, capacity: panelRows * sumsStride) { block in
                    let sums = block.baseAddress!
                    var tile = 0
                    while tile < tiles {
                        let count = min(group, tiles - tile)
                        var row = 0
                        while row < rows {
                            let panel = a.baseAddress! + row * pairs, first = b + tile * tileSize
                            if wide {
                                gloss_int16_wide_kernel(panel, first, tileSize, Int32(count), Int32(pairs), sums)
                            } else {
                                gloss_int16_kernel(panel, first, Int32(pairs), sums)
                            }
                            for t in 0..<count {
                                let column = (tile + t) * tileColumns
                                store(sums + t * tileColumns, sumsStride, min(panelRows, rows - row), row, rowScales.baseAddress!,
                                      Layers.load(scales + column), column, min(tileColumns, columns - column), bias, activation,
                                      residual, residualStride,
                                      output.base + row * output.rowStride + (tile + t) * output.tileStride, output.rowStride,
                                      output.isPacked)
                            }
                            row += panelRows
                        }
                        tile += count
                    }
                }
            }
        }
    }

    /// AMX's tile: sixteen rows of 64 bytes, 32 bf16 values of the depth (or sixteen floats).
    static let tileRows = 16
    static let tileDepth = 32

    /// `multiplyPacked` on AMX: the packed block (`[tile][k][16]` floats) rounded to bf16 pairs
    /// into the thread's buffer (`gloss_bf16_pack`), then `multiplyTileBlocks`.
    static func multiplyTiles(
        _ a: UnsafePointer<UInt16>, rows: Int, depth: Int, chunks: Int, packed: UnsafePointer<Float>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns
        guard let b = gloss_block_buffer(tiles * chunks * tileRows * tileDepth) else { fatalError("no memory for a bf16 block") }
        gloss_bf16_pack(packed, tileColumns, depth * tileColumns, Int32(depth), Int32(columns), Int32(chunks), b)
        multiplyTileBlocks(a, rows: rows, chunks: chunks, b, columns: columns, bias: bias, activation: activation,
                           residual: residual, residualStride: residualStride, output: output)
    }

    /// The product on AMX of `a` (`rows` rows in `PackedMatrix.tiles`' layout) by `b` (`columns`
    /// columns in `gloss_bf16_pack`'s), both `chunks` chunks of 32 deep: 32 rows by 32 columns of
    /// sums at a time (`gloss_amx_product`, four accumulator tiles), every pair of row tiles
    /// over a pair of column tiles (which stays in the first-level cache), stored with the bias,
    /// activation and residual as the other kernels store.
    static func multiplyTileBlocks(
        _ a: UnsafePointer<UInt16>, rows: Int, chunks: Int, _ b: UnsafePointer<UInt16>, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: Destination
    ) {
        let tiles = (columns + tileColumns - 1) / tileColumns, tileSize = tileRows * tileDepth
        let rowTiles = (rows + tileRows - 1) / tileRows, block = 2 * tileColumns
        withUnsafeTemporaryAllocation(of: Float.self, capacity: block * block) { buffer in
            let sums = buffer.baseAddress!
            var tile = 0
            while tile < tiles {
                let pair = min(2, tiles - tile)
                var rowTile = 0
                while rowTile < rowTiles {
                    let rowPair = min(2, rowTiles - rowTile)
                    gloss_amx_product(a + rowTile * chunks * tileSize, chunks * tileSize, Int32(rowPair),
                                      b + tile * chunks * tileSize, chunks * tileSize, Int32(pair), Int32(chunks), sums)
                    let first = rowTile * tileRows, count = min(rowPair * tileRows, rows - first)
                    for t in 0..<pair {
                        let column = (tile + t) * tileColumns, width = min(tileColumns, columns - column)
                        for r in 0..<count {
                            var sum = Layers.load(sums + r * block + t * tileColumns)
                            if let bias { sum += Vector(repeating: bias[first + r]) }
                            Epilogue.store(sum, columns: width, activation: activation,
                                  residual: residual.map { $0 + (first + r) * residualStride + column },
                                  output: output.base + (first + r) * output.rowStride + (tile + t) * output.tileStride,
                                  padded: output.isPacked)
                        }
                    }
                    rowTile += rowPair
                }
                tile += pair
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
        let raw = UnsafeRawPointer(b), step = tileColumns * MemoryLayout<Float>.stride
        microKernel(a, depth: depth, strided: false, firstRow: firstRow, rows: rows, columns: columns, bias: bias,
                    activation: activation, residual: residual, residualStride: residualStride, output: output,
                    rowStride: rowStride, padded: padded) { k in raw + k * step }
    }

    /// The micro-kernel's loop and epilogue: step `k`'s sixteen columns start at `row(k)`
    /// (`strided`: the even values of the 32 there), the packed tile's row or the map's own
    /// (`multiplyDirectAVX2`); the same multiply-adds in the same order either way.
    @inline(__always)
    static func microKernel(
        _ a: UnsafePointer<Float>, depth: Int, strided: Bool, firstRow: Int, rows: Int, columns: Int,
        bias: UnsafePointer<Float>?, activation: Activation, residual: UnsafePointer<Float>?, residualStride: Int,
        output: UnsafeMutablePointer<Float>, rowStride: Int, padded: Bool, row: (Int) -> UnsafeRawPointer
    ) {
        func start(_ r: Int) -> Vector {
            guard let bias, r < rows else { return Vector() }
            return Vector(repeating: bias[firstRow + r])
        }
        var c0 = start(0), c1 = start(1), c2 = start(2), c3 = start(3), c4 = start(4), c5 = start(5)
        var pa = a
        for k in 0..<depth {
            let pb = row(k)
            let x = strided ? evenValues(pb) : pb.loadUnaligned(as: Vector.self)
            c0 = c0.addingProduct(x, pa[0])
            c1 = c1.addingProduct(x, pa[1])
            c2 = c2.addingProduct(x, pa[2])
            c3 = c3.addingProduct(x, pa[3])
            c4 = c4.addingProduct(x, pa[4])
            c5 = c5.addingProduct(x, pa[5])
            pa += panelRows
        }
        func finish(_ sum: Vector, _ r: Int) {
            guard r < rows else { return }
            Epilogue.store(strided ? inColumnOrder(sum) : sum, columns: columns, activation: activation,
                  residual: residual.map { $0 + r * residualStride },
                  output: output + r * rowStride, padded: padded)
        }
        finish(c0, 0)
        finish(c1, 1)
        finish(c2, 2)
        finish(c3, 3)
        finish(c4, 4)
        finish(c5, 5)
    }

    /// The even values of the 32 at `pointer` (columns 0 to 15 of a row read at stride 2), in
    /// each half of eight in the order 0, 1, 4, 5, 2, 3, 6, 7: one `vshufps` of two registers
    /// each (a multiply-add's lanes do not mix, so the sums' columns are put back in order once,
    /// `inColumnOrder`, not each step).
    @inline(__always)
    static func evenValues(_ pointer: UnsafeRawPointer) -> Vector {
        let values = pointer.loadUnaligned(as: SIMD32<Float>.self)
        func half(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
            SIMD8(lowHalf: SIMD4(lowHalf: a.lowHalf.evenHalf, highHalf: b.lowHalf.evenHalf),
                  highHalf: SIMD4(lowHalf: a.highHalf.evenHalf, highHalf: b.highHalf.evenHalf))
        }
        return Vector(lowHalf: half(values.lowHalf.lowHalf, values.lowHalf.highHalf),
                      highHalf: half(values.highHalf.lowHalf, values.highHalf.highHalf))
    }

    /// `evenValues`' sums in the columns' order (its order is its own inverse).
    @inline(__always)
    static func inColumnOrder(_ sum: Vector) -> Vector {
        func half(_ h: SIMD8<Float>) -> SIMD8<Float> {
            SIMD8(lowHalf: SIMD4(lowHalf: h.lowHalf.lowHalf, highHalf: h.highHalf.lowHalf),
                  highHalf: SIMD4(lowHalf: h.lowHalf.highHalf, highHalf: h.highHalf.highHalf))
        }
        return Vector(lowHalf: half(sum.lowHalf), highHalf: half(sum.highHalf))
    }
}
