import CNeuralKernels
import GlossNeuralKernelChoice
#if canImport(Glibc)
import Glibc
#endif

/// The layers a transformer over a line of text adds to a program's convolutions, on Gloss's
/// layout of a sequence: T tokens of F features are an `F x 1 x T` feature map (its pixels are
/// the tokens), so a linear layer is a 1x1 convolution, and a layer norm, a softmax or an
/// attention reads each token's features down a column of planes, vectorised along the tokens.
extension Layers {
    /// Each token's features normalised to mean 0 and variance 1 and then scaled by `gamma`
    /// and shifted by `beta`: `(x - mean) / sqrt(variance + epsilon) * gamma + beta`, over the
    /// channels of each pixel, in the order ONNX's spelled-out LayerNorm computes it.
    public static func layerNorm(
        _ input: FeatureMap, gamma: [Float], beta: [Float], epsilon: Float, into output: inout FeatureMap
    ) {
        let channels = input.channels, plane = input.planeSize
        precondition(gamma.count == channels && beta.count == channels)
        output.reshape(channels: channels, height: input.height, width: input.width)
        let count = Float(channels)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                let x = source.baseAddress!, y = target.baseAddress!
                var p = 0
                while p + lanes <= plane {
                    var sum = Vector()
                    for c in 0..<channels { sum += load(x + c * plane + p) }
                    let mean = sum / count
                    var squares = Vector()
                    for c in 0..<channels {
                        let d = load(x + c * plane + p) - mean
                        squares += d * d
                    }
                    let deviation = (squares / count + epsilon).squareRoot()
                    for c in 0..<channels {
                        store((load(x + c * plane + p) - mean) / deviation * gamma[c] + beta[c], y + c * plane + p)
                    }
                    p += lanes
                }
                while p < plane {
                    var sum: Float = 0
                    for c in 0..<channels { sum += x[c * plane + p] }
                    let mean = sum / count
                    var squares: Float = 0
                    for c in 0..<channels {
                        let d = x[c * plane + p] - mean
                        squares += d * d
                    }
                    let deviation = (squares / count + epsilon).squareRoot()
                    for c in 0..<channels { y[c * plane + p] = (x[c * plane + p] - mean) / deviation * gamma[c] + beta[c] }
                    p += 1
                }
            }
        }
    }

    /// Multi-head self-attention over the tokens (pixels) of `input`, whose `3 * heads * size`
    /// channels are the queries, keys and values, each `heads` blocks of `size` (the order of a
    /// fused QKV projection). Per head, `out = softmax(scale * Q . K^T) . V`; the output's
    /// `heads * size` channels are the heads' results in order. Each head takes two matrix
    /// products through the scratch: the scores transposed, `S^T[j][i] = K^T[j] . (scale Q)[i]`,
    /// each column then normalised over `j`, and `out[d][i] = sum_j V[d][j] S^T[j][i]`, whose
    /// weights are V's rows as they lie in the input.
    public static func attention(
        _ input: FeatureMap, heads: Int, scale: Float, into output: inout FeatureMap, scratch: inout [Float]
    ) {
        let tokens = input.planeSize, width = input.channels / 3, size = width / heads
        precondition(heads > 0 && input.channels == 3 * heads * size && tokens > 0)
        output.reshape(channels: width, height: input.height, width: input.width)
        // keys^T [tokens][size], scaled queries [size][tokens], scores [tokens][tokens], then
        // zeros (the products' bias), each column's maximum and sum.
        let queries = tokens * size, scores = 2 * tokens * size, zeros = scores + tokens * tokens
        let maxima = zeros + max(tokens, size), sums = maxima + tokens
        reserve(&scratch, sums + tokens)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                scratch.withUnsafeMutableBufferPointer { buffer in
                    let base = buffer.baseAddress!
                    (base + zeros).update(repeating: 0, count: max(tokens, size))
                    for head in 0..<heads {
                        let q = source.baseAddress! + head * size * tokens
                        let k = q + width * tokens, v = k + width * tokens
                        for d in 0..<size {
                            for t in 0..<tokens {
                                base[t * size + d] = k[d * tokens + t]
                                base[queries + d * tokens + t] = q[d * tokens + t] * scale
                            }
                        }
                        Kernels.multiply(weights: base, columns: base + queries, columnStride: tokens, bias: base + zeros,
                                         into: base + scores, outputStride: tokens, outputs: tokens, inner: size,
                                         count: tokens, activation: .none)
                        softmaxColumns(base + scores, rows: tokens, columns: tokens, maxima: base + maxima,
                                       sums: base + sums)
                        Kernels.multiply(weights: v, columns: base + scores, columnStride: tokens, bias: base + zeros,
                                         into: target.baseAddress! + head * size * tokens, outputStride: tokens,
                                         outputs: size, inner: tokens, count: tokens, activation: .none)
                    }
                }
            }
        }
    }

    /// Normalises each column of a `rows x columns` matrix to a softmax over its rows, walking
    /// the rows in memory order; `maxima` and `sums` hold a value per column.
    static func softmaxColumns(
        _ matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int, maxima: UnsafeMutablePointer<Float>,
        sums: UnsafeMutablePointer<Float>
    ) {
        maxima.update(repeating: -.infinity, count: columns)
        sums.update(repeating: 0, count: columns)
        for j in 0..<rows {
            let row = matrix + j * columns
            for i in 0..<columns { maxima[i] = max(maxima[i], row[i]) }
        }
        for j in 0..<rows {
            let row = matrix + j * columns
            for i in 0..<columns {
                let e = expf(row[i] - maxima[i])
                row[i] = e
                sums[i] += e
            }
        }
        for j in 0..<rows {
            let row = matrix + j * columns
            for i in 0..<columns { row[i] /= sums[i] }
        }
    }

    /// A softmax over each pixel's channels, written as one row per pixel: the output is
    /// `1 x pixels x channels`, row `p` holding pixel `p`'s probabilities (for a recogniser, a
    /// row per time step and a column per class).
    public static func softmaxRows(_ input: FeatureMap, into output: inout FeatureMap) {
        let channels = input.channels, plane = input.planeSize
        output.reshape(channels: 1, height: plane, width: channels)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                let x = source.baseAddress!, y = target.baseAddress!
                // Transposed in blocks of 16 channels, so each pass reads whole cache lines.
                var c = 0
                while c < channels {
                    let block = min(16, channels - c)
                    for p in 0..<plane {
                        for k in 0..<block { y[p * channels + c + k] = x[(c + k) * plane + p] }
                    }
                    c += block
                }
                for p in 0..<plane { softmax(y + p * channels, count: channels) }
            }
        }
    }

    /// A linear layer and then `softmaxRows`, in one: `out[p][o] = softmax_o(bias[o] + sum_c
    /// x[c][p] * w[o][c])`. The product is the packed matrix product's (`multiplyPanels`) with
    /// the tokens as its rows and the outputs as its columns (for a recogniser, a few dozen
    /// time steps against 18,710 classes): the tokens are packed into panels of six, run by
    /// run; `panels` holds the weights as the product's packed input, a tile of sixteen outputs
    /// at a time, `[o / 16][c][o % 16]` (zero past the last output), so the large matrix is read
    /// once, in order, and every row of probabilities is written in place. On AMX
    /// (`kernels`), with `tiles` (`bf16Panels`, nil to stay fp32), the tokens are rounded to
    /// bf16 tiles instead and the product is `multiplyTileBlocks`; with the integer kernels and
    /// `integers`, the tokens are scaled to 16-bit integers and the product is
    /// `multiplyIntegerBlocks`.
    static func linearSoftmaxRows(
        _ input: FeatureMap, panels: [Float], bias: [Float], tiles: [UInt16]? = nil, integers: IntegerColumns? = nil,
        into output: inout FeatureMap, scratch: inout [Float], kernels: KernelSet = KernelChoice.current.kernels
    ) {
        let inner = input.channels, plane = input.planeSize, outputs = bias.count
        if kernels == .amx, let tiles {
            linearSoftmaxRowsBF16(input, tiles: tiles, bias: bias, into: &output)
            return
        }
        if kernels.products == .int16, let integers {
            linearSoftmaxRowsIntegers(input, integers: integers, bias: bias, into: &output, kernels: kernels)
            return
        }
        let panelCount = (outputs + lanes - 1) / lanes, height = Kernels.panelRows
        precondition(panels.count == panelCount * inner * lanes && lanes == Kernels.tileColumns)
        output.reshape(channels: 1, height: plane, width: outputs)
        let tokens = (plane + height - 1) / height * height
        reserve(&scratch, tokens * inner)
        input.storage.withUnsafeBufferPointer { source in
            panels.withUnsafeBufferPointer { w in
                output.storage.withUnsafeMutableBufferPointer { target in
                    scratch.withUnsafeMutableBufferPointer { buffer in
                        // The tokens as panels `[p / 6][c][p % 6]`, zero past the last.
                        let rows = buffer.baseAddress!
                        rows.update(repeating: 0, count: tokens * inner)
                        for c in 0..<inner {
                            for p in 0..<plane { rows[((p / height) * inner + c) * height + p % height] = source[c * plane + p] }
                        }
                        let y = target.baseAddress!
                        Kernels.multiplyPanels(rows, rows: plane, depth: inner, packed: w.baseAddress!, columns: outputs,
                                               bias: nil, activation: .none, residual: nil, residualStride: 0,
                                               output: Kernels.Destination(base: y, rowStride: outputs, tileStride: lanes))
                        biasedSoftmax(y, rows: plane, count: outputs, bias: bias)
                    }
                }
            }
        }
    }

    /// `linearSoftmaxRows` in 16-bit integers: the tokens `[c][p]` as rows `[p][c]` scaled token
    /// by token to the weights' limit (`IntegerPanels(limit:)`), times the classes' integers
    /// (`IntegerColumns`), then the bias and the softmax row by row.
    static func linearSoftmaxRowsIntegers(_ input: FeatureMap, integers: IntegerColumns, bias: [Float],
                                          into output: inout FeatureMap, kernels: KernelSet) {
        let inner = input.channels, plane = input.planeSize, outputs = bias.count
        output.reshape(channels: 1, height: plane, width: outputs)
        var tokens = [Float](repeating: 0, count: plane * inner)
        input.storage.withUnsafeBufferPointer { source in
            for c in 0..<inner {
                for p in 0..<plane { tokens[p * inner + c] = source[c * plane + p] }
            }
        }
        let rows = IntegerPanels(tokens, rows: plane, inner: inner, limit: integers.limit)
        integers.values.withUnsafeBufferPointer { b in
            integers.scales.withUnsafeBufferPointer { scales in
                output.storage.withUnsafeMutableBufferPointer { target in
                    let y = target.baseAddress!
                    Kernels.multiplyIntegerBlocks(rows, rows: plane, integers: b.baseAddress!, scales: scales.baseAddress!,
                                                  columns: outputs, bias: nil, activation: .none, residual: nil, residualStride: 0,
                                                  output: Kernels.Destination(base: y, rowStride: outputs, tileStride: lanes),
                                                  kernels: kernels)
                    biasedSoftmax(y, rows: plane, count: outputs, bias: bias)
                }
            }
        }
    }

    /// `linearSoftmaxRows` on AMX: the tokens `[c][p]` rounded to bf16 as `PackedMatrix.tiles`
    /// lays out weights (`[p / 16][c / 32][p % 16][c % 32]`, in the thread's buffer), times the
    /// weights' bf16 tiles, then the bias and the softmax row by row.
    static func linearSoftmaxRowsBF16(_ input: FeatureMap, tiles: [UInt16], bias: [Float], into output: inout FeatureMap) {
        let inner = input.channels, plane = input.planeSize, outputs = bias.count
        let depth = Kernels.tileDepth, height = Kernels.tileRows
        let chunks = (inner + depth - 1) / depth, rowTiles = (plane + height - 1) / height
        output.reshape(channels: 1, height: plane, width: outputs)
        let count = rowTiles * chunks * height * depth
        guard let rows = gloss_block_buffer(count) else { fatalError("no memory for a bf16 block") }
        rows.update(repeating: 0, count: count)
        input.storage.withUnsafeBufferPointer { source in
            for c in 0..<inner {
                for p in 0..<plane {
                    rows[((p / height * chunks + c / depth) * height + p % height) * depth + c % depth] =
                        PackedMatrix.bfloat16(source[c * plane + p])
                }
            }
        }
        tiles.withUnsafeBufferPointer { b in
            output.storage.withUnsafeMutableBufferPointer { target in
                let y = target.baseAddress!
                Kernels.multiplyTileBlocks(rows, rows: plane, chunks: chunks, b.baseAddress!, columns: outputs, bias: nil,
                                           activation: .none, residual: nil, residualStride: 0,
                                           output: Kernels.Destination(base: y, rowStride: outputs, tileStride: lanes))
                biasedSoftmax(y, rows: plane, count: outputs, bias: bias)
            }
        }
    }

    /// Each of `rows` rows of `count` values plus `bias` (a value a column), then its softmax:
    /// the bias added sixteen values at a time, as the same sums one at a time.
    static func biasedSoftmax(_ matrix: UnsafeMutablePointer<Float>, rows: Int, count: Int, bias: [Float]) {
        precondition(bias.count == count)
        bias.withUnsafeBufferPointer { added in
            let b = UnsafeMutablePointer(mutating: added.baseAddress!)
            for p in 0..<rows {
                let row = matrix + p * count
                var o = 0
                while o + lanes <= count {
                    store(load(row + o) + load(b + o), row + o)
                    o += lanes
                }
                while o < count { row[o] += b[o]; o += 1 }
                softmax(row, count: count)
            }
        }
    }

    /// `panels` (`[o / 16][c][o % 16]`, `Layers.panels`) rounded to bf16 in the layout AMX's
    /// product reads as its second source (`gloss_bf16_pack`'s: `[o / 16][c / 2][o % 16][c % 2]`,
    /// the depth padded with zeros to chunks of 32), made once when the network is built.
    static func bf16Panels(_ panels: [Float], inner: Int, outputs: Int) -> [UInt16] {
        let tiles = (outputs + lanes - 1) / lanes, pairs = (inner + Kernels.tileDepth - 1) / Kernels.tileDepth * 16
        var result = [UInt16](repeating: 0, count: tiles * pairs * 32)
        for tile in 0..<tiles {
            for c in 0..<inner {
                for lane in 0..<lanes {
                    result[(tile * pairs + c / 2) * 32 + lane * 2 + c % 2] = PackedMatrix.bfloat16(panels[(tile * inner + c) * lanes + lane])
                }
            }
        }
        return result
    }

    /// `weights` `[out][in]` rearranged into the panels `linearSoftmaxRows` reads.
    public static func panels(_ weights: [Float], outputs: Int) -> [Float] {
        let inner = weights.count / outputs, panelCount = (outputs + lanes - 1) / lanes
        var panels = [Float](repeating: 0, count: panelCount * inner * lanes)
        for o in 0..<outputs {
            for c in 0..<inner { panels[((o / lanes) * inner + c) * lanes + o % lanes] = weights[o * inner + c] }
        }
        return panels
    }

    /// `values[i] = exp(values[i] - max) / sum`, in place, a vector at a time.
    static func softmax(_ values: UnsafeMutablePointer<Float>, count: Int) {
        var largest = -Float.infinity, i = 0
        var top = Vector(repeating: -.infinity)
        while i + lanes <= count {
            // A comparison and a blend: the generic pointwiseMax goes lane by lane.
            let v = load(values + i)
            top = top.replacing(with: v, where: v .> top)
            i += lanes
        }
        largest = top.max()
        while i < count { largest = max(largest, values[i]); i += 1 }
        var sums = Vector(), sum: Float = 0
        i = 0
        while i + lanes <= count {
            let e = exponential(load(values + i) - largest)
            store(e, values + i)
            sums += e
            i += lanes
        }
        while i < count {
            let e = expf(values[i] - largest)
            values[i] = e
            sum += e
            i += 1
        }
        sum += sums.sum()
        i = 0
        while i + lanes <= count {
            store(load(values + i) / sum, values + i)
            i += lanes
        }
        while i < count { values[i] /= sum; i += 1 }
    }

    /// `e^x` lane by lane, within 6e-7 of `expf` relative: `x = n ln 2 + r` with `|r| <= ln 2 / 2`,
    /// `e^r` by its Taylor polynomial to the 7th power, `2^n` built in the exponent bits. Below
    /// -87 (where `e^x` leaves the normal floats) it gives `e^-87`, nothing to a softmax.
    /// Plain arithmetic only, so every step is one vector instruction.
    @inline(__always)
    static func exponential(_ x: Vector) -> Vector {
        let clamped = x.replacing(with: -87, where: x .< -87).replacing(with: 88, where: x .> 88)
        // Adding 1.5 * 2^23 rounds x / ln 2 to the nearest whole n and leaves n in the low
        // mantissa bits of the sum.
        let magic: Float = 12_582_912
        let t = clamped * 1.442_695_04 + magic, n = t - magic
        // ln 2 in two parts, so n * ln 2 is subtracted without losing r's digits.
        let r = (clamped - n * 0.693_145_75) - n * 1.428_606_8e-6
        var p = Vector(repeating: 1.0 / 5040)
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        // n moved up to the exponent bits, biased by 127: 2^n.
        let exponent = unsafeBitCast(t, to: SIMD16<Int32>.self) &- (0x4B40_0000 - 127)
        return p * unsafeBitCast(exponent &<< 23, to: Vector.self)
    }

    /// The mean or the maximum of each `kernel` window, `stride` apart, without padding; rows
    /// and columns past the last whole window are left out (ONNX's pools with `ceil_mode` 0).
    public static func pool(
        _ input: FeatureMap, kernel: (Int, Int), stride: (Int, Int), maximum: Bool, into output: inout FeatureMap
    ) {
        let height = (input.height - kernel.0) / stride.0 + 1, width = (input.width - kernel.1) / stride.1 + 1
        precondition(input.height >= kernel.0 && input.width >= kernel.1)
        output.reshape(channels: input.channels, height: height, width: width)
        let area = Float(kernel.0 * kernel.1)
        input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                for c in 0..<input.channels {
                    let plane = source.baseAddress! + c * input.planeSize
                    let out = target.baseAddress! + c * height * width
                    for oy in 0..<height {
                        for ox in 0..<width {
                            var value: Float = maximum ? -.infinity : 0
                            for ky in 0..<kernel.0 {
                                let row = plane + (oy * stride.0 + ky) * input.width + ox * stride.1
                                for kx in 0..<kernel.1 { value = maximum ? max(value, row[kx]) : value + row[kx] }
                            }
                            out[oy * width + ox] = maximum ? value : value / area
                        }
                    }
                }
            }
        }
    }
}

/// A row's largest value and its runner-up, as a scan from the first value that keeps only a
/// strictly larger one finds them (`Layers.topTwo`).
public struct TopTwo: Sendable, Equatable {
    /// The first index holding the largest value, and that value.
    public var best: Int
    public var bestValue: Float
    /// The first index other than `best` holding the largest of the other values, and that
    /// value; -1 and minus infinity when there is no other value above minus infinity.
    public var second: Int
    public var secondValue: Float

    public init(best: Int, bestValue: Float, second: Int, secondValue: Float) {
        self.best = best
        self.bestValue = bestValue
        self.second = second
        self.secondValue = secondValue
    }
}

extension Layers {
    /// The largest of `count` values (at least one) and the largest of the others, each at the
    /// first index that holds it: what a scan from the first value finds when it keeps a value
    /// only when it is strictly larger, and hands the old best to the runner-up when the best
    /// changes (a recogniser's class at a time step, with NumPy's argmax). In vectors, a pass for
    /// each value and a search for its first index, instead of a comparison a value.
    public static func topTwo(_ values: UnsafePointer<Float>, count: Int) -> TopTwo {
        let row = UnsafeMutablePointer(mutating: values)
        let bestValue = largest(row, count: count, skipping: -1)
        let best = firstIndex(of: bestValue, in: row, count: count, skipping: -1)
        let secondValue = count > 1 ? largest(row, count: count, skipping: best) : -.infinity
        let second = secondValue > -.infinity ? firstIndex(of: secondValue, in: row, count: count, skipping: best) : -1
        return TopTwo(best: best, bestValue: bestValue, second: second, secondValue: secondValue)
    }

    /// The largest of the values but the one at `skipping` (-1 for none).
    private static func largest(_ values: UnsafeMutablePointer<Float>, count: Int, skipping: Int) -> Float {
        var top = Vector(repeating: -.infinity), i = 0
        while i + lanes <= count {
            var v = load(values + i)
            if skipping >= i && skipping < i + lanes { v[skipping - i] = -.infinity }
            top = top.replacing(with: v, where: v .> top)
            i += lanes
        }
        var result = top.max()
        while i < count {
            if i != skipping { result = max(result, values[i]) }
            i += 1
        }
        return result
    }

    /// The first index but `skipping` whose value equals `target` (one does).
    private static func firstIndex(of target: Float, in values: UnsafeMutablePointer<Float>, count: Int, skipping: Int) -> Int {
        let wanted = Vector(repeating: target)
        var i = 0
        while i + lanes <= count {
            let equal = load(values + i) .== wanted
            if any(equal) {
                for lane in 0..<lanes where equal[lane] && i + lane != skipping { return i + lane }
            }
            i += lanes
        }
        while i < count {
            if i != skipping && values[i] == target { return i }
            i += 1
        }
        preconditionFailure("no value equals \(target)")
    }
}
