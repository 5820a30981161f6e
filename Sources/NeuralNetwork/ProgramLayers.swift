import GlossNeuralKernelChoice

/// The layers of a `Network` program, on feature maps: each sizes its output (keeping its
/// storage when it fits) and runs on `Kernels`.
extension Layers {
    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>) -> Vector {
        UnsafeRawPointer(pointer).loadUnaligned(as: Vector.self)
    }

    /// Grows `scratch` to at least `count` values; it never shrinks, so runs at similar sizes
    /// allocate nothing.
    static func reserve(_ scratch: inout [Float], _ count: Int) {
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
    }

    /// A full convolution (one group), any kernel, stride and padding; `weights`
    /// `[out][in][kh][kw]`. It packs them on every call: `Network` packs once and calls the
    /// form below.
    public static func convolution(
        _ input: FeatureMap, weights: [Float], bias: [Float], kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation, into output: inout FeatureMap,
        scratch: inout [Float]
    ) {
        let packed = PackedMatrix(weights, rows: bias.count, inner: input.channels * kernel.0 * kernel.1, products: .fp32)
        var workspace: [Float] = []
        convolution(parts: 1, { _ in input }, weights: packed, bias: bias, kernel: kernel, stride: stride, padding: padding,
                    activation: activation, into: &output, scratch: &scratch, workspace: &workspace)
    }

    /// A full convolution with packed weights of the channels of `parts` maps of one size, one
    /// after another (a concatenation that is never stored: `Fusion.swift`); a part that is
    /// `pooled` is read through a 2x2 max pool of stride 1 (`maxPool2x2SameUpper`). A 1x1 convolution
    /// with stride 1 of one map is one matrix product over its planes; any other gathers its
    /// taps, a block of an output row's pixels at a time, each part into its own rows, straight
    /// into the matrix product's packed tiles (`workspace`), and multiplies them, or reads them
    /// where they lie (`convolveRows`). `scratch` is not used.
    static func convolution(
        parts: Int, _ part: (Int) -> FeatureMap, pooled: (Int) -> Bool = { _ in false }, weights: PackedMatrix, bias: [Float], kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation, into output: inout FeatureMap,
        scratch: inout [Float], workspace: inout [Float], kernels: KernelSet = KernelChoice.current.kernels,
        readsInPlace: Bool = true
    ) {
        let input = part(0)
        let channels = (0..<parts).reduce(0) { $0 + part($1).channels }
        let inner = channels * kernel.0 * kernel.1, outputs = bias.count
        precondition(weights.inner == inner && weights.rows == outputs)
        let height = (input.height + padding.top + padding.bottom - kernel.0) / stride.0 + 1
        let width = (input.width + padding.left + padding.right - kernel.1) / stride.1 + 1, plane = height * width
        output.reshape(channels: outputs, height: height, width: width)
        let pointwise = parts == 1 && kernel == (1, 1) && stride == (1, 1) && padding == (0, 0, 0, 0)
        let pooledRows = (0..<parts).reduce(0) { $0 + (pooled($1) ? part($1).channels * kernel.0 * part($1).width : 0) }
        reserve(&workspace, convolutionWorkspace(inner: inner, pooledRows: pooledRows))
        input.storage.withUnsafeBufferPointer { source in
            bias.withUnsafeBufferPointer { b in
                output.storage.withUnsafeMutableBufferPointer { target in
                    workspace.withUnsafeMutableBufferPointer { work in
                        if pointwise {
                            Kernels.matrixProduct(weights, input: source.baseAddress!, inputStride: plane, columns: plane,
                                                  bias: b.baseAddress!, activation: activation, output: target.baseAddress!,
                                                  outputStride: plane, workspace: work.baseAddress!, kernels: kernels)
                            return
                        }
                        precondition((0..<parts).allSatisfy { part($0).height == input.height && part($0).width == input.width })
                        convolveRows(parts: parts, part, pooled: pooled, firstStoredRow: { _ in 0 }, weights: weights,
                                     bias: b.baseAddress!, kernel: kernel, stride: stride, padding: padding,
                                     activation: activation, rows: 0..<height, width: width, target: target.baseAddress!,
                                     targetFirstRow: 0, targetPlane: plane, workspace: work.baseAddress!, kernels: kernels,
                                     readsInPlace: readsInPlace)
                    }
                }
            }
        }
    }

    /// Output rows `rows` (of `width` columns) of a convolution of `parts`, each of which may
    /// hold only a band of its map's rows: part `i`'s first stored row is row
    /// `firstStoredRow(i)` of the whole map, and the rows it does not store are either outside
    /// the map (read as the zero padding) or never read (`Layers.banded`). A block of one output
    /// row's columns at a time is gathered straight into the tiles the micro-kernel reads
    /// (`workspace`) and multiplied; output row `r` goes to row `r - targetFirstRow` of `target`,
    /// whose planes are `targetPlane` apart.
    ///
    /// In fp32 (`PackedMatrix.isReduced` false), a convolution of stride 1 or 2 gathers
    /// nothing inside the rows: each tap's row of the input, shifted by the tap's column (every
    /// other value at stride 2), is the row of columns the product reads, so the columns whose
    /// every tap lies inside the input are multiplied where they lie (`multiplyDirect`), 32 or
    /// 16 at a time, and only the few at either edge are gathered; a pooled part has the rows
    /// this output row reads pooled once. The sums are the same either way; `readsInPlace`
    /// false gathers every column (for tests comparing the two).
    static func convolveRows(
        parts: Int, _ part: (Int) -> FeatureMap, pooled: (Int) -> Bool, firstStoredRow: (Int) -> Int, weights: PackedMatrix,
        bias: UnsafePointer<Float>, kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation, rows: Range<Int>, width: Int,
        target: UnsafeMutablePointer<Float>, targetFirstRow: Int, targetPlane: Int, workspace: UnsafeMutablePointer<Float>,
        kernels: KernelSet = KernelChoice.current.kernels, readsInPlace: Bool = true
    ) {
        let inner = weights.inner
        let block = Kernels.blockColumns(inner: inner)
        func gathered(row: Int, columns: Range<Int>) {
            var column = columns.lowerBound
            while column < columns.upperBound {
                let count = min(block, columns.upperBound - column)
                var first = 0
                for index in 0..<parts {
                    let map = part(index)
                    map.storage.withUnsafeBufferPointer { plane in
                        Kernels.gatherPacked(plane.baseAddress!, channels: map.channels, height: map.height,
                                             width: map.width, kernel: kernel, stride: stride,
                                             padding: (padding.top + firstStoredRow(index), padding.left), row: row,
                                             firstColumn: column, columns: count, depth: inner,
                                             pooled: pooled(index),
                                             firstRow: first * kernel.0 * kernel.1, into: workspace)
                    }
                    first += map.channels
                }
                Kernels.multiplyPacked(
                    weights, packed: workspace, columns: count, bias: bias,
                    activation: activation, residual: nil, residualStride: 0,
                    output: Kernels.Destination(base: target + (row - targetFirstRow) * width + column,
                                                rowStride: targetPlane, tileStride: Kernels.tileColumns),
                    kernels: kernels)
                column += count
            }
        }
        // Output columns `from..<upTo` read every tap inside the input's row (at stride 2, the
        // odd value after the last one too, as the vector loads read pairs).
        let inputWidth = part(0).width, step = stride.1
        let from = (padding.left + step - 1) / step
        let upTo = min(width, (inputWidth - kernel.1 + 1 + padding.left) / step)
        let direct = readsInPlace && !weights.isReduced(on: kernels) && stride.0 == step && (step == 1 || step == 2)
            && (0..<parts).allSatisfy { part($0).width == inputWidth } && upTo - from >= Kernels.tileColumns
        guard direct else {
            for row in rows { gathered(row: row, columns: 0..<width) }
            return
        }
        // A pooled part's rows this output row reads, through its 2x2 max pool, after the
        // gathering's workspace (`convolutionWorkspace`).
        let pooledRows = workspace + Kernels.matrixProductWorkspace(inner: inner)
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: inner + parts) { pointers in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: width * step + 4 * Kernels.tileColumns) { zeros in
                zeros.initialize(repeating: 0)
                let taps = pointers.baseAddress!, bases = taps + inner, zero = UnsafePointer(zeros.baseAddress!)
                // Each part's storage, held open while its rows are read.
                func withBases(_ index: Int, _ body: () -> Void) {
                    guard index < parts else { return body() }
                    part(index).storage.withUnsafeBufferPointer { plane in
                        bases[index] = plane.baseAddress!
                        withBases(index + 1, body)
                    }
                }
                withBases(0) {
                    for row in rows {
                        // Tap k = (c, ky, kx) of this row, at output column 0 (read from `from` on);
                        // a row outside the map reads zeros.
                        var k = 0, pooledRow = pooledRows
                        for index in 0..<parts {
                            let map = part(index), top = padding.top + firstStoredRow(index)
                            for c in 0..<map.channels {
                                for ky in 0..<kernel.0 {
                                    let y = row * stride.0 + ky - top
                                    var line: UnsafePointer<Float>? = nil
                                    if y >= 0 && y < map.height {
                                        line = bases[index] + (c * map.height + y) * map.width
                                        if pooled(index) {
                                            Kernels.maxPoolRow(line!, below: y + 1 < map.height ? line! + map.width : line!,
                                                               width: map.width, into: pooledRow)
                                            line = UnsafePointer(pooledRow)
                                            pooledRow += map.width
                                        }
                                    }
                                    for kx in 0..<kernel.1 {
                                        taps[k] = line.map { $0 + kx - padding.left } ?? zero
                                        k += 1
                                    }
                                }
                            }
                        }
                        var column = from
                        while column + Kernels.tileColumns <= upTo {
                            let count = column + 2 * Kernels.tileColumns <= upTo ? 2 * Kernels.tileColumns : Kernels.tileColumns
                            Kernels.multiplyDirect(
                                weights, taps: taps, offset: column, columns: count, strided: step == 2, bias: bias,
                                activation: activation,
                                output: Kernels.Destination(base: target + (row - targetFirstRow) * width + column,
                                                            rowStride: targetPlane, tileStride: Kernels.tileColumns),
                                kernels: kernels)
                            column += count
                        }
                        gathered(row: row, columns: 0..<from)
                        gathered(row: row, columns: column..<width)
                    }
                }
            }
        }
    }

    /// The workspace `convolveRows` needs: the gathering's tiles, then `pooledRows` rows of
    /// its pooled parts (for each such part, its channels times the kernel's rows, each as wide
    /// as the part).
    static func convolutionWorkspace(inner: Int, pooledRows: Int) -> Int {
        Kernels.matrixProductWorkspace(inner: inner) + pooledRows
    }

    /// A depthwise convolution (one group per channel), any kernel, stride and padding.
    public static func depthwiseConvolution(
        _ input: FeatureMap, weights: [Float], bias: [Float], kernel: (Int, Int), stride: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation, into output: inout FeatureMap,
        scratch: inout [Float]
    ) {
        precondition(weights.count == input.channels * kernel.0 * kernel.1 && bias.count == input.channels)
        let outHeight = (input.height + padding.top + padding.bottom - kernel.0) / stride.0 + 1
        let outWidth = (input.width + padding.left + padding.right - kernel.1) / stride.1 + 1
        output.reshape(channels: input.channels, height: outHeight, width: outWidth)
        reserve(&scratch, (input.height + padding.top + padding.bottom) * (input.width + padding.left + padding.right))
        input.storage.withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    output.storage.withUnsafeMutableBufferPointer { target in
                        scratch.withUnsafeMutableBufferPointer { padded in
                            Kernels.depthwise(source.baseAddress!, channels: input.channels, height: input.height,
                                              width: input.width, weights: w.baseAddress!, bias: b.baseAddress!,
                                              kernel: kernel, stride: stride, padding: padding, activation: activation,
                                              into: target.baseAddress!, outHeight: outHeight, outWidth: outWidth,
                                              scratch: padded.baseAddress!)
                        }
                    }
                }
            }
        }
    }

    /// The same at stride 1 keeping the map's size, into the map's own storage (a step whose
    /// output takes its input's slot: `MemoryPlan.swift`): each plane is copied into the scratch
    /// plane before its output is written, so it can be written over.
    static func depthwiseConvolutionInPlace(
        _ map: inout FeatureMap, weights: [Float], bias: [Float], kernel: (Int, Int),
        padding: (top: Int, left: Int, bottom: Int, right: Int), activation: Activation, scratch: inout [Float]
    ) {
        let (channels, height, width) = (map.channels, map.height, map.width)
        precondition(height + padding.top + padding.bottom - kernel.0 + 1 == height
            && width + padding.left + padding.right - kernel.1 + 1 == width)
        precondition(weights.count == channels * kernel.0 * kernel.1 && bias.count == channels)
        reserve(&scratch, (height + padding.top + padding.bottom) * (width + padding.left + padding.right))
        map.storage.withUnsafeMutableBufferPointer { storage in
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    scratch.withUnsafeMutableBufferPointer { padded in
                        Kernels.depthwise(storage.baseAddress!, channels: channels, height: height, width: width,
                                          weights: w.baseAddress!, bias: b.baseAddress!, kernel: kernel, stride: (1, 1),
                                          padding: padding, activation: activation, into: storage.baseAddress!,
                                          outHeight: height, outWidth: width, scratch: padded.baseAddress!)
                    }
                }
            }
        }
    }

    /// A transposed convolution with kernel and stride 2x2: each input pixel paints its own
    /// 2x2 block, `out[o][2y+i][2x+j] = bias[o] + sum_c w[i][j][o][c] * in[c][y][x]`.
    /// `weights` are `[i][j][out][in]`; they are packed on every call (`Network` packs once).
    public static func transposedConvolution2x2(
        _ input: FeatureMap, weights: [Float], bias: [Float], outputs: Int, activation: Activation,
        into output: inout FeatureMap, scratch: inout [Float]
    ) {
        let inner = input.channels
        precondition(weights.count == 4 * outputs * inner && bias.count == outputs)
        let taps = PackedMatrix(weights, rows: 4 * outputs, inner: inner, products: .fp32)
        var workspace: [Float] = []
        transposedConvolution2x2(input, taps: taps, bias: Array(repeating: bias, count: 4).flatMap { $0 }, activation: activation,
                                 into: &output, scratch: &scratch, workspace: &workspace)
    }

    /// The same with the four taps' `[out][in]` matrices packed as one of `4 x outputs` rows
    /// (row `tap * outputs + o`, tap `(i, j)` = `2i + j`; `bias` a row's). A block of the
    /// input's rows at a time, one matrix product makes every tap's values in the scratch (one
    /// product, so a head of one output runs whole panels, not a sixth of one per tap), then
    /// they are spread onto the output, the two taps of an output row interleaved: the scratch
    /// holds `4 x outputs x rows x width` floats (about `transposedBlock`), not a whole plane
    /// per output (the detector's head at H/4: 17 MB for an A4 page).
    static func transposedConvolution2x2(
        _ input: FeatureMap, taps: PackedMatrix, bias: [Float], activation: Activation,
        into output: inout FeatureMap, scratch: inout [Float], workspace: inout [Float]
    ) {
        let inner = input.channels, plane = input.planeSize, width = input.width, height = input.height
        let outputs = bias.count / 4
        precondition(bias.count == 4 * outputs && taps.rows == 4 * outputs && taps.inner == inner)
        output.reshape(channels: outputs, height: height * 2, width: width * 2)
        let blockRows = max(1, min(height, transposedBlock / max(1, 4 * outputs * width)))
        reserve(&scratch, 4 * outputs * blockRows * width)
        reserve(&workspace, Kernels.matrixProductWorkspace(inner: inner))
        input.storage.withUnsafeBufferPointer { source in
            bias.withUnsafeBufferPointer { b in
                output.storage.withUnsafeMutableBufferPointer { target in
                    scratch.withUnsafeMutableBufferPointer { products in
                        workspace.withUnsafeMutableBufferPointer { work in
                            for top in stride(from: 0, to: height, by: blockRows) {
                                let rows = min(blockRows, height - top), block = rows * width
                                Kernels.matrixProduct(taps, input: source.baseAddress! + top * width, inputStride: plane,
                                                      columns: block, bias: b.baseAddress!, activation: activation,
                                                      output: products.baseAddress!, outputStride: block,
                                                      workspace: work.baseAddress!)
                                for i in 0..<2 {
                                    for o in 0..<outputs {
                                        let left = products.baseAddress! + ((2 * i) * outputs + o) * block
                                        let right = products.baseAddress! + ((2 * i + 1) * outputs + o) * block
                                        let to = target.baseAddress! + o * 4 * plane
                                        for y in 0..<rows {
                                            let line = to + (2 * (top + y) + i) * 2 * width
                                            let even = left + y * width, odd = right + y * width
                                            for x in 0..<width {
                                                line[2 * x] = even[x]
                                                line[2 * x + 1] = odd[x]
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Floats of a transposed convolution's products held at once (256 KB).
    static let transposedBlock = 1 << 16

    /// The largest of each 2x2 window, stride 1, the output as large as the input: the windows
    /// of the last row and column reach past the map, and that part is ignored (ONNX's
    /// `SAME_UPPER` with the padding at minus infinity).
    public static func maxPool2x2SameUpper(_ input: FeatureMap, into output: inout FeatureMap) {
        let height = input.height, width = input.width
        output.reshape(channels: input.channels, height: height, width: width)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                for c in 0..<input.channels {
                    let plane = source.baseAddress! + c * height * width, out = target.baseAddress! + c * height * width
                    for y in 0..<height {
                        let top = plane + y * width, bottom = y + 1 < height ? top + width : top
                        let line = out + y * width
                        for x in 0..<(width - 1) {
                            line[x] = max(max(top[x], top[x + 1]), max(bottom[x], bottom[x + 1]))
                        }
                        // The last column's window is its own column.
                        line[width - 1] = max(top[width - 1], bottom[width - 1])
                    }
                }
            }
        }
    }

    /// The inputs' channels one after another; every input has the same height and width.
    public static func concatenate(_ inputs: [FeatureMap], into output: inout FeatureMap) {
        let height = inputs[0].height, width = inputs[0].width
        precondition(inputs.allSatisfy { $0.height == height && $0.width == width })
        output.reshape(channels: inputs.reduce(0) { $0 + $1.channels }, height: height, width: width)
        var offset = 0
        output.storage.withUnsafeMutableBufferPointer { target in
            for input in inputs {
                input.storage.withUnsafeBufferPointer { source in
                    (target.baseAddress! + offset).update(from: source.baseAddress!, count: input.count)
                }
                offset += input.count
            }
        }
    }

    /// Copies `input`'s values into `output` from value `offset` on (one input of a concatenation
    /// of channels; `output` already has its shape and the same height and width).
    static func place(_ input: FeatureMap, into output: inout FeatureMap, at offset: Int) {
        precondition(input.height == output.height && input.width == output.width && offset + input.count <= output.count)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                (target.baseAddress! + offset).update(from: source.baseAddress!, count: input.count)
            }
        }
    }

    /// `a + b` or `a * b`, element by element; `b` may be one value per channel (`C x 1 x 1`),
    /// which scales or shifts each of `a`'s planes.
    public static func combine(_ a: FeatureMap, _ b: FeatureMap, multiply: Bool, into output: inout FeatureMap) {
        output.reshape(channels: a.channels, height: a.height, width: a.width)
        a.storage.withUnsafeBufferPointer { x in
            output.storage.withUnsafeMutableBufferPointer { target in
                combine(x.baseAddress!, (a.channels, a.height, a.width), b, multiply ? .multiply : .add,
                        into: target.baseAddress!)
            }
        }
    }

    /// How `combine` puts two values together: `addProduct` is `a + a * b` (a residual
    /// squeeze-and-excitation's sum with its product, fused: `Fusion.swift`).
    enum Combination: Sendable { case add, multiply, addProduct }

    @inline(__always) static func combined(_ x: Vector, _ y: Vector, _ how: Combination) -> Vector {
        switch how {
        case .add: return x + y
        case .multiply: return x * y
        case .addProduct: return x + x * y
        }
    }

    @inline(__always) static func combined(_ x: Float, _ y: Float, _ how: Combination) -> Float {
        switch how {
        case .add: return x + y
        case .multiply: return x * y
        case .addProduct: return x + x * y
        }
    }

    /// `a` with `b` as `how` says, into `output`.
    static func combine(_ a: FeatureMap, _ b: FeatureMap, _ how: Combination, into output: inout FeatureMap) {
        output.reshape(channels: a.channels, height: a.height, width: a.width)
        a.storage.withUnsafeBufferPointer { x in
            output.storage.withUnsafeMutableBufferPointer { target in
                combine(x.baseAddress!, (a.channels, a.height, a.width), b, how, into: target.baseAddress!)
            }
        }
    }

    /// The same into `a`'s own storage (a step whose output takes its input's slot:
    /// `MemoryPlan.swift`); add and multiply commute, so either of their inputs may be `a`.
    static func combineInPlace(_ a: inout FeatureMap, _ b: FeatureMap, _ how: Combination) {
        let shape = (a.channels, a.height, a.width)
        a.storage.withUnsafeMutableBufferPointer { target in
            combine(target.baseAddress!, shape, b, how, into: target.baseAddress!)
        }
    }

    /// `a`'s values (at `from`, shaped as `a`) with `b`'s, each plane's, into `to` (which may be `from`).
    private static func combine(
        _ from: UnsafePointer<Float>, _ a: (channels: Int, height: Int, width: Int), _ b: FeatureMap, _ how: Combination,
        into to: UnsafeMutablePointer<Float>
    ) {
        let plane = a.height * a.width
        let perChannel = b.planeSize == 1 && plane != 1
        precondition(a.channels == b.channels && (perChannel || (a.height == b.height && a.width == b.width)))
        b.storage.withUnsafeBufferPointer { y in
            for c in 0..<a.channels {
                let from = from + c * plane, to = to + c * plane
                var i = 0
                if perChannel {
                    let value = y[c], v = Vector(repeating: value)
                    while i + lanes <= plane {
                        store(combined(load(from + i), v, how), to + i)
                        i += lanes
                    }
                    while i < plane { to[i] = combined(from[i], value, how); i += 1 }
                } else {
                    let other = y.baseAddress! + c * plane
                    while i + lanes <= plane {
                        store(combined(load(from + i), load(other + i), how), to + i)
                        i += lanes
                    }
                    while i < plane { to[i] = combined(from[i], other[i], how); i += 1 }
                }
            }
        }
    }

    /// Each channel's mean over its pixels, as a `C x 1 x 1` map.
    public static func channelMean(_ input: FeatureMap, into output: inout FeatureMap) {
        output.reshape(channels: input.channels, height: 1, width: 1)
        let plane = input.planeSize
        input.storage.withUnsafeBufferPointer { source in
            for c in 0..<input.channels {
                let from = source.baseAddress! + c * plane
                var sum = Vector(), i = 0
                while i + lanes <= plane {
                    sum += load(from + i)
                    i += lanes
                }
                var total = sum.sum()
                while i < plane { total += from[i]; i += 1 }
                output.storage[c] = total / Float(plane)
            }
        }
    }

    /// `fine + coarse` enlarged by `factor` (nearest neighbour), without storing the enlarged map.
    static func addEnlarged(_ fine: FeatureMap, _ coarse: FeatureMap, by factor: Int, into output: inout FeatureMap) {
        output.reshape(channels: fine.channels, height: fine.height, width: fine.width)
        fine.storage.withUnsafeBufferPointer { a in
            output.storage.withUnsafeMutableBufferPointer { target in
                addEnlarged(a.baseAddress!, (fine.channels, fine.height, fine.width), coarse, by: factor, into: target.baseAddress!)
            }
        }
    }

    /// The same into `fine`'s own storage (`MemoryPlan.swift`).
    static func addEnlargedInPlace(_ fine: inout FeatureMap, _ coarse: FeatureMap, by factor: Int) {
        let shape = (fine.channels, fine.height, fine.width)
        fine.storage.withUnsafeMutableBufferPointer { target in
            addEnlarged(target.baseAddress!, shape, coarse, by: factor, into: target.baseAddress!)
        }
    }

    /// `fine`'s values (at `from`) plus `coarse` enlarged, into `to` (which may be `from`).
    private static func addEnlarged(
        _ from: UnsafePointer<Float>, _ fine: (channels: Int, height: Int, width: Int), _ coarse: FeatureMap, by factor: Int,
        into to: UnsafeMutablePointer<Float>
    ) {
        precondition(fine.channels == coarse.channels && fine.height == coarse.height * factor
            && fine.width == coarse.width * factor)
        let width = fine.width, coarseWidth = coarse.width
        coarse.storage.withUnsafeBufferPointer { b in
            for c in 0..<fine.channels {
                for y in 0..<fine.height {
                    let line = (c * fine.height + y) * width
                    let row = b.baseAddress! + (c * coarse.height + y / factor) * coarseWidth
                    let from = from + line, to = to + line
                    for x in 0..<coarseWidth {
                        let value = row[x]
                        for copy in 0..<factor { to[x * factor + copy] = from[x * factor + copy] + value }
                    }
                }
            }
        }
    }

    /// Nearest-neighbour enlargement by a whole factor: each value covers a `factor x factor`
    /// block (ONNX `Resize`, nearest, asymmetric, floor).
    public static func enlarge(_ input: FeatureMap, by factor: Int, into output: inout FeatureMap) {
        let width = input.width, outWidth = width * factor
        output.reshape(channels: input.channels, height: input.height * factor, width: outWidth)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                for c in 0..<input.channels {
                    for y in 0..<input.height {
                        let row = source.baseAddress! + (c * input.height + y) * width
                        let first = target.baseAddress! + (c * input.height * factor + y * factor) * outWidth
                        for x in 0..<width {
                            let value = row[x]
                            for copy in 0..<factor { first[x * factor + copy] = value }
                        }
                        for copy in 1..<factor { (first + copy * outWidth).update(from: first, count: outWidth) }
                    }
                }
            }
        }
    }
}
