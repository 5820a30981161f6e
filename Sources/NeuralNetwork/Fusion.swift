/// Rewrites of a program's steps made when a `Network` is built, so that a run neither
/// materialises a large value nobody else reads nor passes over memory twice.
extension Network {
    /// Fuses each enlargement read only by the sum that follows it into that sum
    /// (`.addEnlarged`). Drops each concatenation of channels read only by a full convolution, which then
    /// gathers its taps from the parts (`Layers.convolution(parts:...)`), through the max pool
    /// of a part that is one. And fuses each
    /// channel mixer, `out = y + conv1x1(gelu(conv1x1(y)))` (the backbone's `C ->
    /// 2C -> C` with GELU between), into one `.channelMixer` step when the hidden value and the
    /// product are read by nothing else: it computes the `2C` hidden channels a block of pixels
    /// at a time, straight into the packed form the second product reads, so the hidden map
    /// (twice the input's size) is never stored whole.
    static func fused(_ steps: [Step], output: Int) -> [Step] {
        var uses: [Int: Int] = [output: 1]
        for step in steps { for input in step.inputs { uses[input, default: 0] += 1 } }
        var result: [Step] = []
        var index = 0
        while index < steps.count {
            if index + 2 < steps.count, let mixer = channelMixer(steps[index], steps[index + 1], steps[index + 2], uses: uses) {
                result.append(mixer)
                index += 3
            } else if index + 1 < steps.count, case .multiply = steps[index].operation, case .add = steps[index + 1].operation,
                      uses[steps[index].output] == 1, steps[index].inputs.count == 2,
                      Set(steps[index + 1].inputs) == [steps[index].inputs[0], steps[index].output] {
                // A residual squeeze-and-excitation, `x + x * s`, in one pass (and, as `x` is
                // last read there, in `x`'s slot: `MemoryPlan.swift`).
                result.append(Step(operation: .addProduct, inputs: steps[index].inputs, output: steps[index + 1].output,
                                   line: steps[index + 1].line))
                index += 2
            } else if index + 1 < steps.count, case .resize(let factor) = steps[index].operation,
                      case .add = steps[index + 1].operation, uses[steps[index].output] == 1,
                      steps[index + 1].inputs.contains(steps[index].output),
                      let fine = steps[index + 1].inputs.first(where: { $0 != steps[index].output }) {
                // A sum with an enlarged map reads the small one (an FPN's top-down path).
                result.append(Step(operation: .addEnlarged(factor: factor), inputs: [fine, steps[index].inputs[0]],
                                   output: steps[index + 1].output, line: steps[index + 1].line))
                index += 2
            } else if index + 1 < steps.count, case .concat = steps[index].operation,
                      case .convolution(_, _?, _, _, _, _, _, _, _) = steps[index + 1].operation,
                      steps[index + 1].inputs == [steps[index].output], uses[steps[index].output] == 1 {
                // A convolution of a concatenation reads the parts where they are, and a part
                // that is a max pool read by nothing else through the pool from its input.
                var convolution = steps[index + 1]
                convolution.inputs = steps[index].inputs
                for (position, part) in convolution.inputs.enumerated() where uses[part] == 1 {
                    guard let made = result.lastIndex(where: { $0.output == part }), case .maxPool = result[made].operation
                    else { continue }
                    convolution.inputs[position] = result[made].inputs[0]
                    convolution.pooled.insert(position)
                    result.remove(at: made)
                }
                result.append(convolution)
                index += 2
            } else {
                result.append(steps[index])
                index += 1
            }
        }
        return result
    }

    /// The fused step of `expand`, `project` and `add`, or nil when they are not a mixer.
    private static func channelMixer(_ expand: Step, _ project: Step, _ add: Step, uses: [Int: Int]) -> Step? {
        guard case .convolution(_, let first?, let firstBias, _, (1, 1), (1, 1), (0, 0, 0, 0), 1, .gelu) = expand.operation,
              case .convolution(_, let second?, let secondBias, _, (1, 1), (1, 1), (0, 0, 0, 0), 1, .none) = project.operation,
              case .add = add.operation,
              project.inputs == [expand.output], uses[expand.output] == 1, uses[project.output] == 1,
              second.rows == first.inner, second.inner == first.rows
        else { return nil }
        let residual = expand.inputs[0]
        guard add.inputs == [residual, project.output] || add.inputs == [project.output, residual] else { return nil }
        return Step(operation: .channelMixer(expand: first, expandBias: firstBias, project: second, projectBias: secondBias),
                    inputs: [residual], output: add.output, line: add.line)
    }
}

extension Layers {
    /// `out = y + project(gelu(expand(y)))` (1x1 convolutions plus bias), a block of pixels at
    /// a time: the block of `y` is packed, the hidden channels are written packed for the
    /// second product, which adds `y` back as it stores. `isCancelled` is asked before each
    /// block; the return is false when it said yes (the output is then incomplete).
    static func channelMixer(
        _ input: FeatureMap, expand: PackedMatrix, expandBias: [Float], project: PackedMatrix, projectBias: [Float],
        into output: inout FeatureMap, workspace: inout [Float], isCancelled: () -> Bool
    ) -> Bool {
        let channels = input.channels, hidden = expand.rows, plane = input.planeSize
        precondition(expand.inner == channels && project.inner == hidden && project.rows == channels)
        output.reshape(channels: channels, height: input.height, width: input.width)
        let block = Kernels.blockColumns(inner: hidden)
        let hiddenOffset = block * channels
        reserve(&workspace, hiddenOffset + block * hidden)
        return input.storage.withUnsafeBufferPointer { source in
            output.storage.withUnsafeMutableBufferPointer { target in
                workspace.withUnsafeMutableBufferPointer { work in
                    expandBias.withUnsafeBufferPointer { firstBias in
                        projectBias.withUnsafeBufferPointer { secondBias in
                            let packed = work.baseAddress!, between = work.baseAddress! + hiddenOffset
                            var first = 0
                            while first < plane {
                                if isCancelled() { return false }
                                let count = min(block, plane - first)
                                Kernels.pack(source.baseAddress! + first, stride: plane, depth: channels, columns: count,
                                             into: packed)
                                Kernels.multiplyPacked(
                                    expand, packed: packed, columns: count, bias: firstBias.baseAddress!, activation: .gelu,
                                    residual: nil, residualStride: 0,
                                    output: Kernels.Destination(base: between, rowStride: Kernels.tileColumns,
                                                                tileStride: hidden * Kernels.tileColumns))
                                Kernels.multiplyPacked(
                                    project, packed: between, columns: count, bias: secondBias.baseAddress!,
                                    activation: .none, residual: source.baseAddress! + first, residualStride: plane,
                                    output: Kernels.Destination(base: target.baseAddress! + first, rowStride: plane,
                                                                tileStride: Kernels.tileColumns))
                                first += count
                            }
                            return true
                        }
                    }
                }
            }
        }
    }
}
