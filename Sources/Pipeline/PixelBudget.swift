/// Bounds the pixels decoded at once across a batch's workers, so that a run of 600 ppi scans
/// cannot exhaust memory however many workers there are: a page waits for room before it is
/// decoded. A page larger than the whole budget still runs, alone.
actor PixelBudget {
    private let limit: Int
    private var inUse = 0
    private var waiting: [(pixels: Int, resume: CheckedContinuation<Void, Never>)] = []

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits until `pixels` fit in the budget, then takes them. Returns what it took, for `release`.
    func acquire(_ pixels: Int) async -> Int {
        let share = min(max(1, pixels), limit)
        if waiting.isEmpty && inUse + share <= limit {
            inUse += share
            return share
        }
        await withCheckedContinuation { waiting.append((share, $0)) }
        return share
    }

    func release(_ share: Int) {
        inUse -= share
        // First come, first served: a big page is not overtaken forever by small ones.
        while let next = waiting.first, inUse + next.pixels <= limit {
            waiting.removeFirst()
            inUse += next.pixels
            next.resume.resume()
        }
    }
}
