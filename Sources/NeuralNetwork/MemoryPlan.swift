/// Which slot (a feature map kept from run to run) each value of a program lives in.
extension Network {
    /// Assigns slots to values whose lives do not overlap (an output's overlaps its step's
    /// inputs', so they never share one), largest value first. Each value's size relative to
    /// the input's pixels follows from the program (strides shrink it, enlargements grow it), so
    /// the slots' total is close to the largest set of values alive at once.
    /// Returns each value's slot and each slot's floats per input pixel (what `run` reserves
    /// before the first step, so that no slot grows while others are full).
    static func slots(for steps: [Step], channels: [Int], output: Int) -> (slotOfValue: [Int], sizes: [Double]) {
        // Each value's floats per input pixel; the first value is the input.
        var size = [Double](repeating: 0, count: channels.count)
        var area = [Double](repeating: 1, count: channels.count)
        size[0] = Double(channels[0])
        for step in steps {
            let scale = step.inputs.first.map { area[$0] } ?? 1
            switch step.operation {
            case .convolution(_, _, _, _, _, let stride, _, _, _): area[step.output] = scale / Double(stride.0 * stride.1)
            case .transposed: area[step.output] = scale * 4
            case .banded(let group):
                // Along the first sources from the step's first input to its output.
                var areas: [Double] = []
                for member in group.members {
                    let before: Double
                    switch member.sources[0] {
                    case .outside(let position): before = area[step.inputs[position]]
                    case .member(let index): before = areas[index]
                    }
                    areas.append(before / Double(member.stride.0 * member.stride.1))
                }
                area[step.output] = areas.last ?? scale
            case .resize(let factor): area[step.output] = scale * Double(factor * factor)
            case .mean: area[step.output] = 0
            case .pool(_, let stride, _): area[step.output] = scale / Double(stride.0 * stride.1)
            default: area[step.output] = scale
            }
            size[step.output] = area[step.output] * Double(channels[step.output])
            // A softmax's rows are its tokens, each as long as the classes.
            if case .linearSoftmax(_, let bias, _, _) = step.operation { size[step.output] = area[step.output] * Double(bias.count) }
        }
        // Each value lives from the step that makes it to its last use (the input from before
        // the first step; the output to the end). Largest first, each value takes the first
        // slot none of whose values lives at the same time, else a new one: a slot's size is
        // that of its first, largest value.
        var made = [Int](repeating: -1, count: channels.count)
        var lastUse = [Int](repeating: -1, count: channels.count)
        for (index, step) in steps.enumerated() {
            made[step.output] = index
            lastUse[step.output] = index
            for input in step.inputs { lastUse[input] = index }
        }
        lastUse[output] = steps.count
        // A sum or product, or a depthwise convolution at stride 1, may write over an input it
        // is that input's last use of, of its own size (the FPN's 96-channel maps at H/4: two
        // alive instead of three): the output then lives in that input's slot, and the two
        // values are planned as one.
        var root = Array(0..<channels.count)
        for (index, step) in steps.enumerated() {
            let candidates: ArraySlice<Int>
            switch step.operation {
            case .add, .multiply: candidates = step.inputs[...]
            case .addEnlarged, .addProduct: candidates = step.inputs.prefix(1)
            case .convolution(_, nil, _, _, let kernel, (1, 1), let padding, let groups, _)
                where groups > 1 && padding.top + padding.bottom == kernel.0 - 1 && padding.left + padding.right == kernel.1 - 1:
                candidates = step.inputs.prefix(1)
            default: continue
            }
            guard step.inputs.count == 2 && step.inputs[0] != step.inputs[1] || candidates.count == 1 && step.inputs.count == 1,
                  let own = candidates.first(where: { lastUse[$0] == index && size[$0] == size[step.output] && $0 != output })
            else { continue }
            root[step.output] = root[own]
            made[root[own]] = min(made[root[own]], made[step.output])
            lastUse[root[own]] = max(lastUse[root[own]], lastUse[step.output])
        }
        let values = ([0] + steps.map(\.output)).filter { root[$0] == $0 }
        // Two orders, each placed by best fit; the plan of the smaller total is kept. Largest
        // first suits a chain of shrinking maps; in order of birth reuses a slot as soon as it
        // is free, which a network whose largest maps are born late wants (the detector: 13.5
        // floats per input pixel where largest first took 15.1, as a value of 3 took a slot of
        // 6 and later ones of 3 needed their own). The recogniser plans 56.0, the classifier 6.75.
        let bySize = values.sorted { size[$0] > size[$1] || size[$0] == size[$1] && $0 < $1 }
        let byBirth = values.sorted { made[$0] < made[$1] || made[$0] == made[$1] && $0 < $1 }
        var (slotOfValue, capacity) = Self.place(bySize, size: size, made: made, lastUse: lastUse, count: channels.count)
        let born = Self.place(byBirth, size: size, made: made, lastUse: lastUse, count: channels.count)
        if born.capacity.reduce(0, +) < capacity.reduce(0, +) { (slotOfValue, capacity) = born }
        for value in [0] + steps.map(\.output) { slotOfValue[value] = slotOfValue[root[value]] }
        return (slotOfValue, capacity)
    }

    /// Puts each value, in `order`, in the slot none of whose values lives at the same time
    /// that fits it most closely: the smallest that holds it, else the largest, grown to it;
    /// a new slot when every slot is taken. A slot's size is that of its largest value.
    static func place(_ order: [Int], size: [Double], made: [Int], lastUse: [Int], count: Int)
        -> (slotOfValue: [Int], capacity: [Double]) {
        var slotOfValue = [Int](repeating: -1, count: count)
        var capacity: [Double] = []
        var residents: [[Int]] = []
        for value in order {
            let overlaps = { (other: Int) in made[value] <= lastUse[other] && made[other] <= lastUse[value] }
            let free = residents.indices.filter { !residents[$0].contains(where: overlaps) }
            let holding = free.filter { capacity[$0] >= size[value] }
            if let slot = holding.min(by: { capacity[$0] < capacity[$1] }) ?? free.max(by: { capacity[$0] < capacity[$1] }) {
                residents[slot].append(value)
                slotOfValue[value] = slot
                capacity[slot] = max(capacity[slot], size[value])
            } else {
                slotOfValue[value] = capacity.count
                capacity.append(size[value])
                residents.append([value])
            }
        }
        return (slotOfValue, capacity)
    }
}

extension Network {
    /// Gives back every map and buffer the runs kept (the slots, the scratch, the matrix
    /// product's workspace, the bands), so a network that is done with a page holds none of
    /// its size while another network works: the detector's maps for an A4 page are 170 MB,
    /// idle while its lines are read. The next run plans and allocates them again. The map a
    /// run returned stays valid as long as it is held (it shares its slot's storage).
    public mutating func releaseMemory() {
        for index in slots.indices { slots[index] = FeatureMap(channels: 0, height: 0, width: 0) }
        scratch = []
        workspace = []
        bands = []
    }

    /// Floats the network holds from run to run: what `releaseMemory` gives back.
    public var reservedFloats: Int {
        (slots + bands).reduce(0) { $0 + $1.storage.count } + scratch.count + workspace.count
    }
}
