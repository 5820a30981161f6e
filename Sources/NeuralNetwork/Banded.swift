/// Convolutions evaluated a band of rows at a time, so that the large maps between them exist
/// only as bands of a few rows (the detector's stem: `models/ppocr/README.md`).
extension Network {
    /// A group of full convolutions ending in one of stride 2 or more whose other members'
    /// outputs are read only inside the group: `members` in program order, the last the one
    /// whose output the step writes.
    struct BandedGroup: Sendable {
        struct Member: Sendable {
            enum Source: Sendable, Equatable {
                /// The step's input at this position (a map held whole in its slot).
                case outside(Int)
                /// An earlier member's output (a band).
                case member(Int)
            }
            var weights: PackedMatrix
            var bias: [Float]
            var kernel: (Int, Int)
            var stride: (Int, Int)
            var padding: (top: Int, left: Int, bottom: Int, right: Int)
            var activation: Activation
            var sources: [Source]
            /// Sources read through a 2x2 max pool of stride 1, by position.
            var pooled: Set<Int>
        }
        var members: [Member]
        var channels: [Int]

        /// Each member's whole height and width for inputs of `sizes` (the step's inputs').
        func sizes(inputs sizes: [(height: Int, width: Int)]) -> [(height: Int, width: Int)] {
            var result: [(height: Int, width: Int)] = []
            for member in members {
                let (h, w): (Int, Int)
                switch member.sources[0] {
                case .outside(let position): (h, w) = sizes[position]
                case .member(let index): (h, w) = result[index]
                }
                result.append(((h + member.padding.top + member.padding.bottom - member.kernel.0) / member.stride.0 + 1,
                               (w + member.padding.left + member.padding.right - member.kernel.1) / member.stride.1 + 1))
            }
            return result
        }
    }

    /// Rows of the group's output computed per band: each band recomputes the few rows of the
    /// members' maps its neighbour also needs (the stem's: 3 of 2 x 16 + 1 at H/2, about 10%
    /// more of the stem's work), and holds a band of each member's map (about 34 rows of a
    /// 24-channel map at H/2: 3 MB at 300 ppi, against 67 MB whole).
    static let bandRows = 16

    /// Replaces each group of convolutions that `bandedGroup` finds by one `.banded` step at its
    /// last member's place; the members' outputs are then never stored whole.
    static func banding(_ steps: [Step], channels: [Int], output: Int) -> [Step] {
        var result = steps
        var index = 0
        while index < result.count {
            if let (group, members, inputs) = bandedGroup(ending: index, in: result, channels: channels, output: output) {
                let last = result[index]
                result[index] = Step(operation: .banded(group), inputs: inputs, output: last.output, line: last.line)
                let removed = Set(members.dropLast())
                result = result.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
                index -= removed.count
            }
            index += 1
        }
        return result
    }

    /// The group ending in `steps[last]`, a full convolution of stride 2 or more: the full
    /// convolutions whose outputs it reads, and theirs, as far as each output is read by the
    /// group only. Nil when there is no such convolution before it.
    private static func bandedGroup(ending last: Int, in steps: [Step], channels: [Int], output: Int)
        -> (BandedGroup, [Int], [Int])? {
        guard case .convolution(_, _?, _, _, _, let stride, _, _, _) = steps[last].operation, stride.0 >= 2 else { return nil }
        var readers: [Int: Set<Int>] = [:]
        for (index, step) in steps.enumerated() { for input in step.inputs { readers[input, default: []].insert(index) } }
        var members: Set<Int> = [last]
        var grew = true
        while grew {
            grew = false
            for member in members {
                for input in steps[member].inputs {
                    guard input != output, let producer = steps.firstIndex(where: { $0.output == input }), !members.contains(producer),
                          case .convolution(_, _?, _, _, _, _, _, _, _) = steps[producer].operation,
                          (readers[input] ?? []).isSubset(of: members)
                    else { continue }
                    members.insert(producer)
                    grew = true
                }
            }
        }
        guard members.count >= 2 else { return nil }
        let ordered = members.sorted()
        var inputs: [Int] = []
        var group: [BandedGroup.Member] = []
        for index in ordered {
            guard case .convolution(_, let packed?, let bias, _, let kernel, let stride, let padding, _, let activation)
                    = steps[index].operation else { return nil }
            let sources = steps[index].inputs.map { value -> BandedGroup.Member.Source in
                if let member = ordered.firstIndex(where: { steps[$0].output == value }) { return .member(member) }
                if let position = inputs.firstIndex(of: value) { return .outside(position) }
                inputs.append(value)
                return .outside(inputs.count - 1)
            }
            group.append(BandedGroup.Member(weights: packed, bias: bias, kernel: kernel, stride: stride, padding: padding,
                                            activation: activation, sources: sources, pooled: steps[index].pooled))
        }
        return (BandedGroup(members: group, channels: ordered.map { channels[steps[$0].output] }), ordered, inputs)
    }
}

extension Layers {
    /// Evaluates `group` on `inputs` into `output`, `bandRows` output rows at a time: for each
    /// band, the rows each member's map must hold follow backwards from the output's (a
    /// convolution's window, one more for a pooled read), and each member computes just those
    /// rows into its band in `bands`. `isCancelled` is asked before each band; the return is
    /// false when it said yes (the output is then incomplete).
    static func banded(
        _ group: Network.BandedGroup, inputs: [FeatureMap], bandRows: Int, into output: inout FeatureMap,
        bands: inout [FeatureMap], workspace: inout [Float], isCancelled: () -> Bool
    ) -> Bool {
        let members = group.members, last = members.count - 1
        let sizes = group.sizes(inputs: inputs.map { ($0.height, $0.width) })
        output.reshape(channels: group.channels[last], height: sizes[last].height, width: sizes[last].width)
        if bands.count < last { bands += [FeatureMap](repeating: FeatureMap(channels: 0, height: 0, width: 0), count: last - bands.count) }
        // The gathering's tiles and the pooled parts' rows (`convolutionWorkspace`).
        reserve(&workspace, members.map { member in
            let pooledRows = member.pooled.reduce(0) { total, position in
                switch member.sources[position] {
                case .outside(let input): return total + inputs[input].channels * member.kernel.0 * inputs[input].width
                case .member(let producer): return total + group.channels[producer] * member.kernel.0 * sizes[producer].width
                }
            }
            return convolutionWorkspace(inner: member.weights.inner, pooledRows: pooledRows)
        }.max() ?? 0)
        var first = 0
        while first < sizes[last].height {
            if isCancelled() { return false }
            let end = min(first + bandRows, sizes[last].height)
            // The rows of each member's map this band needs, in whole-map rows.
            var needed = [Range<Int>?](repeating: nil, count: members.count)
            needed[last] = first..<end
            for index in stride(from: last, through: 0, by: -1) {
                guard let rows = needed[index] else { continue }
                let member = members[index]
                for (position, source) in member.sources.enumerated() {
                    guard case .member(let producer) = source else { continue }
                    let top = rows.lowerBound * member.stride.0 - member.padding.top
                    let bottom = (rows.upperBound - 1) * member.stride.0 - member.padding.top + member.kernel.0
                        + (member.pooled.contains(position) ? 1 : 0)
                    let clipped = max(top, 0)..<min(bottom, sizes[producer].height)
                    guard !clipped.isEmpty else { continue }
                    needed[producer] = needed[producer].map {
                        min($0.lowerBound, clipped.lowerBound)..<max($0.upperBound, clipped.upperBound)
                    } ?? clipped
                }
            }
            for index in 0...last {
                guard let rows = needed[index] else { continue }
                let member = members[index]
                let width = sizes[index].width
                var target = FeatureMap(channels: 0, height: 0, width: 0)
                if index == last { swap(&target, &output) } else {
                    swap(&target, &bands[index])
                    target.reshape(channels: group.channels[index], height: rows.count, width: width)
                }
                let targetFirstRow = index == last ? 0 : rows.lowerBound, targetPlane = target.planeSize
                func part(_ position: Int) -> FeatureMap {
                    switch member.sources[position] {
                    case .outside(let input): return inputs[input]
                    case .member(let producer): return bands[producer]
                    }
                }
                func firstStoredRow(_ position: Int) -> Int {
                    switch member.sources[position] {
                    case .outside: return 0
                    case .member(let producer): return needed[producer]?.lowerBound ?? 0
                    }
                }
                target.storage.withUnsafeMutableBufferPointer { storage in
                    member.bias.withUnsafeBufferPointer { bias in
                        workspace.withUnsafeMutableBufferPointer { work in
                            convolveRows(parts: member.sources.count, part, pooled: { member.pooled.contains($0) },
                                         firstStoredRow: firstStoredRow, weights: member.weights, bias: bias.baseAddress!,
                                         kernel: member.kernel, stride: member.stride, padding: member.padding,
                                         activation: member.activation, rows: rows, width: width,
                                         target: storage.baseAddress!, targetFirstRow: targetFirstRow,
                                         targetPlane: targetPlane, workspace: work.baseAddress!)
                        }
                    }
                }
                if index == last { swap(&target, &output) } else { swap(&target, &bands[index]) }
            }
            first = end
        }
        return true
    }
}
