/// Durations as reports write them and older APIs take them: one conversion each, here.
extension Duration {
    /// Seconds as a floating-point number.
    public var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Milliseconds rounded to a tenth: finer is noise in a report.
    public var milliseconds: Double {
        (secondsValue * 10_000).rounded() / 10
    }
}
