/// Which slot (a feature map kept from run to run) each value of a program lives in.
extension Network {
    /// Assigns slots: a value takes a free slot when it is made and frees its inputs' after
    /// their last use; the output's slot is never freed, and an output never shares a slot with
    /// an input of its own step. A slot keeps the largest map it ever held, so the choice is by
    /// size: each value's size relative to the input's pixels is known from the program (strides
    /// shrink it, enlargements grow it), and a value takes the smallest free slot that already
    /// holds it, else the largest free one (which grows least). The memory of a run is then
    /// close to the largest set of values alive at once.
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
            case .resize(let factor): area[step.output] = scale * Double(factor * factor)
            case .mean: area[step.output] = 0
            default: area[step.output] = scale
            }
            size[step.output] = area[step.output] * Double(channels[step.output])
        }
        var lastUse = [Int](repeating: -1, count: channels.count)
        for (index, step) in steps.enumerated() { for input in step.inputs { lastUse[input] = index } }
        lastUse[output] = steps.count
        var slotOfValue = [Int](repeating: -1, count: channels.count)
        var capacity: [Double] = [size[0]]
        var free: [Int] = []
        slotOfValue[0] = 0
        if lastUse[0] < 0 { free.append(0) }
        for (index, step) in steps.enumerated() {
            let needed = size[step.output]
            let fitting = free.filter { capacity[$0] >= needed }.min { capacity[$0] < capacity[$1] }
            let chosen = fitting ?? free.max { capacity[$0] < capacity[$1] }
            if let chosen {
                free.removeAll { $0 == chosen }
                slotOfValue[step.output] = chosen
                capacity[chosen] = max(capacity[chosen], needed)
            } else {
                slotOfValue[step.output] = capacity.count
                capacity.append(needed)
            }
            for input in Set(step.inputs) where lastUse[input] == index { free.append(slotOfValue[input]) }
            if lastUse[step.output] < 0 { free.append(slotOfValue[step.output]) }
        }
        return (slotOfValue, capacity)
    }
}
