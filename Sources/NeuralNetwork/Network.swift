import CNeuralKernels
import GlossNeuralKernelChoice

/// A network given as a program (a version 2 model file, `models/ppocr/README.md`), evaluated
/// one operation at a time into feature maps it keeps from run to run.
///
/// The values of the program share a few slots: a value's slot is free again after its last
/// use, so a page needs only the maps alive at once, and a second page of a similar size
/// allocates nothing. Everything the program names is checked when it is built (the tensors,
/// their shapes, the channels flowing between operations), so a run cannot index outside a
/// tensor; only the picture's size is checked per run.
public struct Network: Sendable {
    /// One operation and the values it reads and writes.
    struct Step: Sendable {
        var operation: Operation
        var inputs: [Int]
        var output: Int
        var line: Int
        /// Inputs a convolution reads through a 2x2 max pool (`Fusion.swift`), by position.
        var pooled: Set<Int> = []
    }

    enum Operation: Sendable {
        /// `weights` `[out][in/group][kh][kw]` when grouped (depthwise); a full convolution's
        /// are `packed` instead (`weights` empty).
        case convolution(weights: [Float], packed: PackedMatrix?, bias: [Float], outputs: Int, kernel: (Int, Int), stride: (Int, Int),
                         padding: (top: Int, left: Int, bottom: Int, right: Int), groups: Int, activation: Activation)
        /// Kernel and stride 2x2; `taps` the four taps' `[out][in]` matrices one below another
        /// (row `tap * outputs + o`, tap `(i, j)` = `2i + j`), packed as one; `bias` a row's.
        case transposed(taps: PackedMatrix, bias: [Float], outputs: Int, activation: Activation)
        /// 2x2 maximum, stride 1, the missing row and column at the bottom and right ignored.
        case maxPool
        case concat
        case add
        case multiply
        /// `a + a * b`, fused from a product and the sum of it with its first input (`Fusion.swift`).
        case addProduct
        case mean
        case resize(factor: Int)
        /// `weights` `[out][in]` applied to each pixel's channels (a token's features).
        case linear(weights: [Float], packed: PackedMatrix, bias: [Float], activation: Activation)
        /// Over each pixel's channels.
        case layerNorm(gamma: [Float], beta: [Float], epsilon: Float)
        /// Self-attention over the pixels; the input's channels are Q, K, V of `heads` heads each.
        case attention(heads: Int, scale: Float)
        /// Over each pixel's channels, written `1 x pixels x channels`.
        case softmax
        /// A `linear` whose only use is a `softmax`, in one step; `panels` as
        /// `Layers.linearSoftmaxRows` reads them, with their bf16 tiles or 16-bit integers where
        /// the network keeps them.
        case linearSoftmax(panels: [Float], bias: [Float], tiles: [UInt16]?, integers: IntegerColumns?)
        /// The mean or the maximum of windows, no padding, the rest past the last window dropped.
        case pool(kernel: (Int, Int), stride: (Int, Int), maximum: Bool)
        /// `a + resize(b)` (nearest, by `factor`), fused from two lines (`Fusion.swift`).
        case addEnlarged(factor: Int)
        /// `y + project(gelu(expand(y)))`, fused from three lines (`Fusion.swift`).
        case channelMixer(expand: PackedMatrix, expandBias: [Float], project: PackedMatrix, projectBias: [Float])
        /// Full convolutions computed a band of rows at a time (`Banded.swift`).
        case banded(BandedGroup)
    }

    private(set) var steps: [Step]
    let slotOfValue: [Int]
    let inputChannels: Int
    /// Each value's height and width in the current run, worked out before it starts.
    var sizes: [(height: Int, width: Int)]
    let outputValue: Int
    var slots: [FeatureMap]
    /// Each slot's floats per input pixel (`MemoryPlan.swift`).
    let slotSizes: [Double]
    var scratch: [Float] = []
    /// The matrix product's packed blocks of its input.
    var workspace: [Float] = []
    /// The bands of a `.banded` step's maps.
    var bands: [FeatureMap] = []
    let path: String

    /// Builds the network of `model`'s program; `path` names the model in errors. `products`
    /// keeps the weights of its matrix products in bf16 too, for AMX's product
    /// (`KernelSet.amx`), or in 16-bit integers for AVX2's (`KernelSet.int16`), by default as
    /// the process's kernels multiply; `.fp32` keeps every product in fp32 (the parity tests
    /// against ONNX Runtime).
    public init(model: ModelFile, path: String, products: Products = KernelChoice.current.kernels.products) throws(ModelError) {
        self.path = path
        var tensors: [String: ModelFile.Tensor] = [:]
        for tensor in model.tensors { tensors[tensor.name] = tensor }
        var values = ["input": 0]
        var channels = [0]
        var steps: [Step] = []
        var output: Int?
        let lines = model.program.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, text) in lines.enumerated() where !text.isEmpty {
            let number = index + 1
            func fail(_ reason: String) -> ModelError { ModelError(path: path, reason: "program line \(number): \(reason)") }
            let words = text.split(separator: " ").map(String.init)
            if words.first == "output" {
                guard words.count == 2, let value = values[words[1]] else { throw fail("unknown output") }
                output = value
                continue
            }
            guard words.count >= 3, words[1] == "=", values[words[0]] == nil else { throw fail("not `NAME = OP ...`") }
            var named: [String: String] = [:]
            var inputs: [Int] = []
            var literals: [String] = []
            for word in words.dropFirst(3) {
                if let equals = word.firstIndex(of: "=") {
                    named[String(word[..<equals])] = String(word[word.index(after: equals)...])
                } else if word.hasPrefix("[") {
                    literals.append(word)
                } else {
                    guard let value = values[word] else { throw fail("unknown value \(word)") }
                    inputs.append(value)
                }
            }
            func tensor(_ key: String) throws(ModelError) -> ModelFile.Tensor {
                guard let name = named[key], let found = tensors[name] else { throw fail("no tensor for \(key)") }
                return found
            }
            func pair(_ key: String) throws(ModelError) -> (Int, Int) {
                let parts = (named[key] ?? "").split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ (1...15).contains($0) }) else { throw fail("bad \(key)") }
                return (parts[0], parts[1])
            }
            func integers(_ key: String) -> [Int] { (named[key] ?? "").split(separator: ",").compactMap { Int($0) } }
            var inChannels = inputs.map { channels[$0] }
            let operation: Operation
            var outChannels = inChannels.first ?? 0
            switch words[2] {
            case "conv", "deconv":
                guard inputs.count == 1 else { throw fail("one input") }
                let weights = try tensor("weight"), bias = try tensor("bias")
                let kernel = try pair("kernel"), kernelStride = try pair("stride")
                let activation = try Self.activation(named["act"] ?? "", fail: fail)
                let pads = (named["pad"] ?? "").split(separator: ",").compactMap { Int($0) }
                guard pads.count == 4, pads.allSatisfy({ (0...7).contains($0) }) else { throw fail("bad pad") }
                let groups = Int(named["group"] ?? "") ?? 0
                if words[2] == "conv" {
                    // The input's channels are those its first convolution takes.
                    if inputs == [0] && channels[0] == 0 && weights.shape.count == 4 && groups == 1 {
                        channels[0] = weights.shape[1]
                        inChannels = [weights.shape[1]]
                    }
                    // Groups no more than the channels before the product below: a hostile count
                    // would overflow it.
                    guard groups >= 1, groups <= inChannels[0], inChannels[0] % groups == 0, weights.shape.count == 4,
                          weights.shape[1] * groups == inChannels[0], weights.shape[2] == kernel.0, weights.shape[3] == kernel.1,
                          weights.shape[0] % groups == 0, bias.shape == [weights.shape[0]],
                          groups == 1 || groups == weights.shape[0] && weights.shape[1] == 1
                    else { throw fail("weights \(weights.shape), bias \(bias.shape) for \(inChannels[0]) channels, \(groups) groups") }
                    outChannels = weights.shape[0]
                    let packed = groups == 1 ? PackedMatrix(weights.values, rows: outChannels, inner: inChannels[0] * kernel.0 * kernel.1, products: products) : nil
                    operation = .convolution(weights: groups == 1 ? [] : weights.values, packed: packed, bias: bias.values,
                                             outputs: outChannels, kernel: kernel,
                                             stride: kernelStride, padding: (pads[0], pads[1], pads[2], pads[3]), groups: groups,
                                             activation: activation)
                } else {
                    guard kernel == (2, 2), kernelStride == (2, 2), pads == [0, 0, 0, 0], groups == 1, weights.shape.count == 4,
                          weights.shape[0] == inChannels[0], weights.shape[2] == 2, weights.shape[3] == 2,
                          bias.shape == [weights.shape[1]]
                    else { throw fail("a transposed convolution other than 2x2, stride 2") }
                    outChannels = weights.shape[1]
                    // ONNX's [in][out][i][j] to the four taps' [out][in] matrices, one below another.
                    let ins = inChannels[0], outs = outChannels
                    let stacked = (0..<(4 * outs * ins)).map { index in
                        let tap = index / (outs * ins), o = index / ins % outs, c = index % ins
                        return weights.values[(c * outs + o) * 4 + tap]
                    }
                    let taps = PackedMatrix(stacked, rows: 4 * outs, inner: ins, products: products)
                    operation = .transposed(taps: taps, bias: Array(repeating: bias.values, count: 4).flatMap { $0 }, outputs: outChannels,
                                            activation: activation)
                }
            case "maxpool" where named["auto_pad"] == "SAME_UPPER":
                guard inputs.count == 1, named["kernel_shape"] == "2,2", named["strides"] == "1,1"
                else { throw fail("a max pool other than 2x2, stride 1, SAME_UPPER") }
                operation = .maxPool
            case "maxpool", "averagepool":
                let kernel = integers("kernel_shape"), windowStrides = integers("strides")
                guard inputs.count == 1, kernel.count == 2, windowStrides.count == 2,
                      (kernel + windowStrides).allSatisfy({ (1...15).contains($0) }),
                      integers("pads").allSatisfy({ $0 == 0 }), (named["ceil_mode"] ?? "0") == "0"
                else { throw fail("a pool other than of whole windows without padding") }
                operation = .pool(kernel: (kernel[0], kernel[1]), stride: (windowStrides[0], windowStrides[1]),
                                  maximum: words[2] == "maxpool")
            case "linear":
                guard inputs.count == 1 else { throw fail("one input") }
                let weights = try tensor("weight"), bias = try tensor("bias")
                guard weights.shape.count == 2, weights.shape[1] == inChannels[0], bias.shape == [weights.shape[0]]
                else { throw fail("weights \(weights.shape), bias \(bias.shape) for \(inChannels[0]) features") }
                outChannels = weights.shape[0]
                operation = .linear(weights: weights.values, packed: PackedMatrix(weights.values, rows: outChannels, inner: inChannels[0], products: products),
                                    bias: bias.values,
                                    activation: try Self.activation(named["act"] ?? "", fail: fail))
            case "layernorm":
                let gamma = try tensor("gamma"), beta = try tensor("beta")
                guard inputs.count == 1, gamma.shape == [inChannels[0]], beta.shape == gamma.shape,
                      let epsilon = Float(named["epsilon"] ?? ""), epsilon > 0
                else { throw fail("a layer norm other than of the features, with gamma, beta and epsilon") }
                operation = .layerNorm(gamma: gamma.values, beta: beta.values, epsilon: epsilon)
            case "attention":
                guard inputs.count == 1, let heads = Int(named["heads"] ?? ""), heads > 0, inChannels[0] % (3 * heads) == 0,
                      let scale = Float(named["scale"] ?? ""), scale.isFinite
                else { throw fail("an attention other than of Q, K, V of whole heads, with a scale") }
                outChannels = inChannels[0] / 3
                operation = .attention(heads: heads, scale: scale)
            case "softmax":
                guard inputs.count == 1 else { throw fail("one input") }
                outChannels = 1
                operation = .softmax
            case "concat":
                guard inputs.count >= 2, named["axis"] == "1" else { throw fail("a concat other than of channels") }
                outChannels = inChannels.reduce(0, +)
                operation = .concat
            case "add", "mul":
                guard inputs.count == 2, inChannels[0] == inChannels[1] else { throw fail("two inputs of the same channels") }
                operation = words[2] == "add" ? .add : .multiply
            case "mean":
                guard inputs.count == 1, named["axes"] == "2,3" else { throw fail("a mean other than over pixels") }
                operation = .mean
            case "resize":
                let scales = literals.last?.dropFirst().dropLast().split(separator: ",").compactMap { Float($0) } ?? []
                guard inputs.count == 1, named["mode"] == "nearest", scales.count == 4, scales[0] == 1, scales[1] == 1,
                      scales[2] == scales[3], let factor = Int(exactly: scales[2]), (2...16).contains(factor)
                else { throw fail("a resize other than a nearest, whole enlargement") }
                operation = .resize(factor: factor)
            default:
                throw fail("operation \(words[2]) is not supported yet")
            }
            values[words[0]] = channels.count
            steps.append(Step(operation: operation, inputs: inputs, output: channels.count, line: number))
            channels.append(outChannels)
        }
        guard let output, !steps.isEmpty else { throw ModelError(path: path, reason: "the program has no output") }
        steps = Self.fusingLinearSoftmax(steps, output: output)
        guard channels[0] > 0 else {
            throw ModelError(path: path, reason: "the program does not start with a convolution of its input")
        }
        let inputChannels = channels[0]
        let fused = Self.banding(Self.fused(steps, output: output), channels: channels, output: output)
        let (slotOfValue, slotSizes) = Self.slots(for: fused, channels: channels, output: output)
        self.steps = fused
        self.slotOfValue = slotOfValue
        self.inputChannels = inputChannels
        self.sizes = [(height: Int, width: Int)](repeating: (0, 0), count: channels.count)
        self.outputValue = output
        self.slotSizes = slotSizes
        self.slots = [FeatureMap](repeating: FeatureMap(channels: 0, height: 0, width: 0), count: slotSizes.count)
        _ = tensors
    }

    /// This network with every product in fp32: the bf16 tiles and 16-bit integers left out and
    /// the weights shared with this one, not copied (arrays are copied only when written, and
    /// weights never are), so a second network of the same model costs its maps alone. The recogniser's cascade
    /// builds its fp32 reader so (`KernelChoice.cascade`).
    public var withFP32Products: Network {
        var network = self
        network.steps = steps.map { step in
            var step = step
            switch step.operation {
            case .convolution(let weights, let packed, let bias, let outputs, let kernel, let stride, let padding, let groups,
                              let activation):
                step.operation = .convolution(weights: weights, packed: packed?.fp32, bias: bias, outputs: outputs, kernel: kernel,
                                              stride: stride, padding: padding, groups: groups, activation: activation)
            case .transposed(let taps, let bias, let outputs, let activation):
                step.operation = .transposed(taps: taps.fp32, bias: bias, outputs: outputs, activation: activation)
            case .linear(let weights, let packed, let bias, let activation):
                step.operation = .linear(weights: weights, packed: packed.fp32, bias: bias, activation: activation)
            case .linearSoftmax(let panels, let bias, _, _):
                step.operation = .linearSoftmax(panels: panels, bias: bias, tiles: nil, integers: nil)
            case .channelMixer(let expand, let expandBias, let project, let projectBias):
                step.operation = .channelMixer(expand: expand.fp32, expandBias: expandBias, project: project.fp32,
                                               projectBias: projectBias)
            case .banded(var group):
                for index in group.members.indices { group.members[index].weights = group.members[index].weights.fp32 }
                step.operation = .banded(group)
            case .maxPool, .concat, .add, .multiply, .addProduct, .mean, .resize, .layerNorm, .attention, .softmax, .pool,
                 .addEnlarged:
                break
            }
            return step
        }
        return network
    }

    /// Each `softmax` of a `linear` no other step reads (and that is not the `output`) becomes
    /// one `linearSoftmax` step reading the linear's input (its output value is then never made).
    static func fusingLinearSoftmax(_ steps: [Step], output: Int) -> [Step] {
        var fused = steps
        var readers = [Int: Int]()
        for step in steps { for input in step.inputs { readers[input, default: 0] += 1 } }
        var dropped = Set<Int>()
        for (index, step) in steps.enumerated() {
            guard case .softmax = step.operation, let producer = steps.firstIndex(where: { $0.output == step.inputs[0] }),
                  readers[step.inputs[0]] == 1, step.inputs[0] != output,
                  case .linear(let weights, let packed, let bias, Activation.none) = steps[producer].operation
            else { continue }
            let panels = Layers.panels(weights, outputs: bias.count)
            // bf16 or 16-bit integers where the linear layer kept such weights (`Network(products:)`).
            let tiles = packed.tiles == nil ? nil : Layers.bf16Panels(panels, inner: packed.inner, outputs: bias.count)
            let integers = packed.integers == nil ? nil : IntegerColumns(panels: panels, inner: packed.inner, outputs: bias.count)
            fused[index] = Step(operation: .linearSoftmax(panels: panels, bias: bias, tiles: tiles, integers: integers),
                                inputs: steps[producer].inputs,
                                output: step.output, line: step.line)
            dropped.insert(producer)
        }
        return fused.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
    }

    static func activation(_ text: String, fail: (String) -> ModelError) throws(ModelError) -> Activation {
        switch text {
        case "none": return .none
        case "relu": return .relu
        case "sigmoid": return .sigmoid
        case "gelu": return .gelu
        case "swish": return .swish
        case "hardswish": return .hardSwish
        default:
            let prefix = "hardsigmoid("
            guard text.hasPrefix(prefix), text.hasSuffix(")") else { throw fail("activation \(text)") }
            let numbers = text.dropFirst(prefix.count).dropLast().split(separator: ",").compactMap { Float($0) }
            guard numbers.count == 2 else { throw fail("activation \(text)") }
            return .hardSigmoid(alpha: numbers[0], beta: numbers[1])
        }
    }

    /// How many steps a run takes (after fusion).
    public var stepCount: Int { steps.count }

    /// Step `index` in a few words (its operation, program line, output's channels and size in
    /// the last run), for a bench's profile.
    public func describe(step index: Int) -> String {
        let step = steps[index], size = sizes[step.output]
        let name: String
        switch step.operation {
        case .convolution(_, let packed, _, let outputs, let kernel, let stride, _, let groups, _):
            name = "conv \(kernel.0)x\(kernel.1)/\(stride.0)" + (packed == nil ? " dw\(groups)" : " \(packed!.inner / (kernel.0 * kernel.1))->\(outputs)")
                + (step.inputs.count > 1 ? " (\(step.inputs.count) parts)" : "")
        case .transposed(let taps, _, let outputs, _): name = "deconv \(taps.inner)->\(outputs)"
        case .channelMixer(let expand, _, _, _): name = "mixer \(expand.inner)->\(expand.rows)"
        case .banded(let group): name = "banded \(group.members.count) convs"
        case .maxPool: name = "maxpool"
        case .concat: name = "concat"
        case .add: name = "add"
        case .multiply: name = "multiply"
        case .addProduct: name = "addProduct"
        case .mean: name = "mean"
        case .resize(let factor): name = "resize x\(factor)"
        case .linear(_, let packed, _, _): name = "linear \(packed.inner)->\(packed.rows)"
        case .layerNorm: name = "layerNorm"
        case .attention(let heads, _): name = "attention \(heads) heads"
        case .softmax: name = "softmax"
        case .linearSoftmax(_, let bias, _, _): name = "linearSoftmax ->\(bias.count)"
        case .pool(let kernel, _, let maximum): name = (maximum ? "maxpool " : "avgpool ") + "\(kernel.0)x\(kernel.1)"
        case .addEnlarged(let factor): name = "addEnlarged x\(factor)"
        }
        return "line \(step.line) \(name) -> \(size.height)x\(size.width)"
    }

    /// How many feature maps a run keeps (the program's values share them).
    public var slotCount: Int { slots.count }

    /// Works out every value's size for an input of `height x width`, or says which line the
    /// size does not fit: maps added or concatenated must agree (the detector's upsampled
    /// paths: height and width multiples of 32), a pool needs a whole window, and attention
    /// reads one row of tokens, as the graph's reshapes do (the recogniser: height 48).
    mutating func plan(height: Int, width: Int) -> String? {
        sizes[0] = (height, width)
        for step in steps {
            let (h, w) = sizes[step.inputs[0]]
            var size = (height: h, width: w)
            switch step.operation {
            case .convolution(_, _, _, _, let kernel, let stride, let padding, _, _):
                size = ((h + padding.top + padding.bottom - kernel.0) / stride.0 + 1,
                        (w + padding.left + padding.right - kernel.1) / stride.1 + 1)
                if h + padding.top + padding.bottom < kernel.0 || w + padding.left + padding.right < kernel.1 {
                    return "line \(step.line): a \(h) x \(w) map is smaller than the kernel"
                }
            case .transposed: size = (2 * h, 2 * w)
            case .banded(let group):
                let inputs = step.inputs.map { sizes[$0] }
                for other in inputs.dropFirst() where other != (h, w) {
                    return "line \(step.line): maps of \(h) x \(w) and \(other.height) x \(other.width) do not meet"
                }
                let made = group.sizes(inputs: inputs)
                if made.contains(where: { $0.height < 1 || $0.width < 1 }) {
                    return "line \(step.line): a \(h) x \(w) map is smaller than a kernel"
                }
                size = made[made.count - 1]
            case .maxPool, .linear, .layerNorm, .channelMixer: break
            case .addEnlarged(let factor):
                let (oh, ow) = sizes[step.inputs[1]]
                if (oh * factor, ow * factor) != (h, w) {
                    return "line \(step.line): a \(oh) x \(ow) map enlarged by \(factor) does not meet one of \(h) x \(w)"
                }
            case .concat:
                for other in step.inputs.dropFirst() where sizes[other] != (h, w) {
                    return "line \(step.line): maps of \(h) x \(w) and \(sizes[other].height) x \(sizes[other].width) do not meet"
                }
            case .add, .multiply, .addProduct:
                // The second may be one value per channel.
                let (oh, ow) = sizes[step.inputs[1]]
                if (oh, ow) != (h, w) && oh * ow != 1 {
                    return "line \(step.line): maps of \(h) x \(w) and \(oh) x \(ow) do not meet"
                }
            case .mean: size = (1, 1)
            case .resize(let factor): size = (h * factor, w * factor)
            case .attention:
                if h != 1 { return "line \(step.line): attention reads one row of tokens, not \(h)" }
            case .softmax, .linearSoftmax: size = (h * w, 0)
            case .pool(let kernel, let stride, _):
                guard h >= kernel.0 && w >= kernel.1 else {
                    return "line \(step.line): a \(h) x \(w) map is smaller than the pool"
                }
                size = ((h - kernel.0) / stride.0 + 1, (w - kernel.1) / stride.1 + 1)
            }
            sizes[step.output] = size
        }
        return nil
    }

    /// Runs the network on `input` (channels as the first layer expects; any size whose maps
    /// fit together, `plan` says) and returns its output. `isCancelled` is asked between
    /// operations and between blocks (or bands) of a fused one; when it says yes the run stops
    /// with `NetworkError.cancelled`.
    public mutating func run(_ input: FeatureMap, isCancelled: () -> Bool = { false }) throws(NetworkError) -> FeatureMap {
        guard input.channels == inputChannels else {
            throw .badInput("\(path): a \(input.channels) x \(input.height) x \(input.width) input; "
                + "the network takes \(inputChannels) channels")
        }
        return try run(height: input.height, width: input.width, filling: { map in
            map.storage.withUnsafeMutableBufferPointer { target in
                input.storage.withUnsafeBufferPointer { source in
                    target.baseAddress!.update(from: source.baseAddress!, count: input.count)
                }
            }
        }, isCancelled: isCancelled)
    }

    /// Runs the network on an input of `height x width` that `fill` writes straight into the
    /// network's own map (shaped as the input, its contents undefined; `fill` may reshape it
    /// only to that shape), so the caller need not hold a copy of the input.
    /// (`NetworkRunning`'s requirement, which the reader calls: keep this signature, or the
    /// protocol's default, which holds the input twice, answers instead.)
    public mutating func run(height: Int, width: Int, filling fill: (inout FeatureMap) -> Void,
                             isCancelled: () -> Bool = { false }) throws(NetworkError) -> FeatureMap {
        try run(height: height, width: width, filling: fill, isCancelled: isCancelled, afterStep: nil)
    }

    /// The same, telling `afterStep` the index of each step as it ends (a bench times the steps
    /// by it; `describe(step:)` names them).
    public mutating func run(height: Int, width: Int, filling fill: (inout FeatureMap) -> Void,
                             isCancelled: () -> Bool = { false }, afterStep: ((Int) -> Void)?) throws(NetworkError) -> FeatureMap {
        guard height > 0, width > 0 else { throw .badInput("\(path): a \(height) x \(width) input") }
        // Values below float's smallest normal are flushed to zero while the network runs:
        // the GELU's far tail makes them, and each one read by a product costs a microcode
        // assist (the detector ran 2.5 times slower; `gloss_flush_subnormals`). The thread's
        // own control is put back however the run ends.
        let control = gloss_flush_subnormals()
        defer { gloss_restore_float_control(control) }
        if let reason = plan(height: height, width: width) {
            throw .badInput("\(path): a \(height) x \(width) input does not fit, \(reason)")
        }
        for (slot, size) in slotSizes.enumerated() {
            slots[slot].reserve(Int((size * Double(height * width)).rounded(.up)))
        }
        let slot = slotOfValue[0]
        slots[slot].reshape(channels: inputChannels, height: height, width: width)
        fill(&slots[slot])
        guard (slots[slot].channels, slots[slot].height, slots[slot].width) == (inputChannels, height, width) else {
            throw .badInput("\(path): the input was filled as \(slots[slot].channels) x \(slots[slot].height) x "
                + "\(slots[slot].width), not \(inputChannels) x \(height) x \(width)")
        }
        for (index, step) in steps.enumerated() {
            if isCancelled() { throw .cancelled }
            // The output's map is taken out of its slot while the step runs, so the inputs can
            // be read from theirs without copying (no step writes a slot it reads).
            var output = FeatureMap(channels: 0, height: 0, width: 0)
            swap(&output, &slots[slotOfValue[step.output]])
            let finished = evaluate(step, into: &output, isCancelled: isCancelled)
            swap(&output, &slots[slotOfValue[step.output]])
            if !finished { throw .cancelled }
            afterStep?(index)
        }
        return slots[slotOfValue[outputValue]]
    }

    /// Runs one step; false when `isCancelled` said yes inside it (a long fused step asks).
    private mutating func evaluate(_ step: Step, into output: inout FeatureMap, isCancelled: () -> Bool) -> Bool {
        let first = slots[slotOfValue[step.inputs[0]]]
        switch step.operation {
        case .convolution(let weights, let packed, let bias, _, let kernel, let stride, let padding, _, let activation):
            if let packed {
                // The buffers are taken out of `self` so the closure may read the slots.
                var scratch: [Float] = [], workspace: [Float] = []
                swap(&scratch, &self.scratch)
                swap(&workspace, &self.workspace)
                Layers.convolution(parts: step.inputs.count, { slots[slotOfValue[step.inputs[$0]]] },
                                   pooled: { step.pooled.contains($0) }, weights: packed,
                                   bias: bias, kernel: kernel, stride: stride, padding: padding, activation: activation,
                                   into: &output, scratch: &scratch, workspace: &workspace)
                swap(&scratch, &self.scratch)
                swap(&workspace, &self.workspace)
            } else if slotOfValue[step.inputs[0]] == slotOfValue[step.output] {
                // Unpacked means depthwise (the parser admits no other grouping). The output
                // took the input's slot (`MemoryPlan.swift`): `output` holds it.
                Layers.depthwiseConvolutionInPlace(&output, weights: weights, bias: bias, kernel: kernel, padding: padding,
                                                   activation: activation, scratch: &scratch)
            } else {
                Layers.depthwiseConvolution(first, weights: weights, bias: bias, kernel: kernel, stride: stride, padding: padding,
                                            activation: activation, into: &output, scratch: &scratch)
            }
        case .transposed(let taps, let bias, _, let activation):
            Layers.transposedConvolution2x2(first, taps: taps, bias: bias, activation: activation, into: &output,
                                            scratch: &scratch, workspace: &workspace)
        case .maxPool:
            Layers.maxPool2x2SameUpper(first, into: &output)
        case .concat:
            // Input by input, so a run allocates no array of them.
            let channels = step.inputs.reduce(0) { $0 + slots[slotOfValue[$1]].channels }
            output.reshape(channels: channels, height: first.height, width: first.width)
            var offset = 0
            for value in step.inputs {
                Layers.place(slots[slotOfValue[value]], into: &output, at: offset)
                offset += slots[slotOfValue[value]].count
            }
        case .add, .multiply, .addProduct:
            let how: Layers.Combination
            switch step.operation {
            case .multiply: how = .multiply
            case .addProduct: how = .addProduct
            default: how = .add
            }
            if let own = step.inputs.firstIndex(where: { slotOfValue[$0] == slotOfValue[step.output] }) {
                // The output took this input's slot (`MemoryPlan.swift`): `output` holds it.
                Layers.combineInPlace(&output, slots[slotOfValue[step.inputs[1 - own]]], how)
            } else {
                Layers.combine(first, slots[slotOfValue[step.inputs[1]]], how, into: &output)
            }
        case .mean:
            Layers.channelMean(first, into: &output)
        case .resize(let factor):
            Layers.enlarge(first, by: factor, into: &output)
        case .linear(_, let packed, let bias, let activation):
            // A 1x1 convolution: a matrix product over the tokens.
            Layers.convolution(parts: 1, { _ in first }, weights: packed, bias: bias, kernel: (1, 1), stride: (1, 1),
                               padding: (0, 0, 0, 0), activation: activation, into: &output, scratch: &scratch,
                               workspace: &workspace)
        case .layerNorm(let gamma, let beta, let epsilon):
            Layers.layerNorm(first, gamma: gamma, beta: beta, epsilon: epsilon, into: &output)
        case .attention(let heads, let scale):
            Layers.attention(first, heads: heads, scale: scale, into: &output, scratch: &scratch)
        case .softmax:
            Layers.softmaxRows(first, into: &output)
        case .linearSoftmax(let panels, let bias, let tiles, let integers):
            Layers.linearSoftmaxRows(first, panels: panels, bias: bias, tiles: tiles, integers: integers, into: &output,
                                     scratch: &scratch)
        case .pool(let kernel, let stride, let maximum):
            Layers.pool(first, kernel: kernel, stride: stride, maximum: maximum, into: &output)
        case .addEnlarged(let factor) where slotOfValue[step.inputs[0]] == slotOfValue[step.output]:
            Layers.addEnlargedInPlace(&output, slots[slotOfValue[step.inputs[1]]], by: factor)
        case .addEnlarged(let factor):
            Layers.addEnlarged(first, slots[slotOfValue[step.inputs[1]]], by: factor, into: &output)
        case .banded(let group):
            var bands: [FeatureMap] = [], workspace: [Float] = []
            swap(&bands, &self.bands)
            swap(&workspace, &self.workspace)
            let finished = Layers.banded(group, inputs: step.inputs.map { slots[slotOfValue[$0]] }, bandRows: Self.bandRows,
                                         into: &output, bands: &bands, workspace: &workspace, isCancelled: isCancelled)
            swap(&bands, &self.bands)
            swap(&workspace, &self.workspace)
            return finished
        case .channelMixer(let expand, let expandBias, let project, let projectBias):
            return Layers.channelMixer(first, expand: expand, expandBias: expandBias, project: project,
                                       projectBias: projectBias, into: &output, workspace: &workspace,
                                       isCancelled: isCancelled)
        }
        return true
    }
}

/// Why a run of a network stopped.
public enum NetworkError: Error, Sendable, Equatable {
    /// The caller's cancellation check said yes between two operations.
    case cancelled
    /// The input does not fit the network.
    case badInput(String)
}
