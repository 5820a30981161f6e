import GlossContract
import GlossNeuralReading

/// A page's text as the plan read it, and the record of how.
public struct PlannedReading: Sendable, Equatable {
    /// The page's text in reading order; each line names its reader when the plan fused two.
    public var text: RecognizedText
    /// The plan made from the page's signals.
    public var plan: ReadingPlan
    /// What was done with each detected line, in the detector's order; empty without fusion.
    public var actions: [LineAction]
    /// The rules that fired, each once, in the order they first did.
    public var rules: [PlanRule]
    /// The share of detected lines no reading covers; nil without detected lines.
    public var unreadLines: Double? = nil
    /// Of the lines both readers read, the share of characters on which they differ; nil
    /// when no line was read by both.
    public var disagreement: Double? = nil
    /// Whether the detector ran on the page (not for `fast`, nor for a `sure-page`).
    public var detected = false
}

/// The one loop that runs a plan. With the detector (`accurate`), Tesseract first reads the page
/// the way it was given (unless the detectors were unsure of it: `ReadingPlan.readsPageFirst`),
/// and a sure reading stands alone (`sure-page`); else the detector's lines
/// complete the signals, the plan is made, the first reading kept unless the plan reads the page
/// its other ways too (a doubted way up the lines did not settle), and each detected line fused
/// as the plan says. The readers are behind protocols, so the decisions are tested with fakes.
public enum PlanExecution {
    public static func read(
        signals: PageSignals, mode: TextMode, policy: FusionPolicy,
        page: inout some PageTextReader, lines: inout some LineDetecting & LineTextReading, cancellation: CancellationFlag
    ) throws -> PlannedReading {
        var signals = signals
        var asGiven: RecognizedText?
        if ReadingPlan.readsPageFirst(signals: signals, mode: mode) {
            let text = try page.readPage(wayUpSettled: true, cancellation: cancellation)
            let evidence = PageEvidence(text: text, scale: policy.scale(of: .tesseract), uncoveredText: page.uncoveredText(of: text),
                                        settlesWayUp: !signals.wayUpInDoubt
                                            || SecondReadings.settlesWayUp(text, size: signals.size, policy: policy.preparation))
            if let plan = ReadingPlan.standing(evidence, policy: policy) {
                return PlannedReading(text: text, plan: plan, actions: [], rules: plan.rules)
            }
            asGiven = text
        }
        let wordHeight = asGiven.flatMap { policy.sureWordHeight(of: $0, pageHeight: signals.size.height) }
        if mode.detectsLines { signals.lines = try lines.detectLines(wordHeight: wordHeight, cancellation: cancellation) }
        var plan = ReadingPlan(signals: signals, mode: mode, policy: policy)
        if mode.detectsLines && wordHeight != nil { plan.rules.insert(.wordsSizeDetector, at: 0) }
        let pageText: RecognizedText
        if let asGiven, plan.wayUpSettled || !signals.wayUpInDoubt {
            pageText = asGiven
        } else {
            pageText = try page.readPage(wayUpSettled: plan.wayUpSettled, cancellation: cancellation)
        }
        guard let linePlan = plan.lines else {
            return PlannedReading(text: pageText, plan: plan, actions: [], rules: plan.rules, detected: signals.lines != nil)
        }
        let assignment = WordAssignment(text: pageText, lines: linePlan.lines.map(\.region), minimumShare: policy.wordInLine)
        let scale = policy.scale(of: plan.pageReader)
        let actions = zip(linePlan.lines, assignment.byLine).map { line, words in
            linePlan.action(for: LineEvidence(line: line, probabilities: words.map { scale.probability($0.confidence) }))
        }
        let toRead = actions.indices.filter { actions[$0].readsLine }
        let readings = toRead.isEmpty ? [] : try lines.readLines(toRead, cancellation: cancellation)
        var second = [TextLine?](repeating: nil, count: actions.count)
        for (index, reading) in zip(toRead, readings) { second[index] = reading }
        let places = PageReaderPlace.places(in: pageText)
        let place = { (words: [RecognizedWord]) in words.compactMap { places[$0.box] }.min { $0.rank < $1.rank } }
        let fusedLines = linePlan.lines.indices.map { index in
            LineFusion.fused(linePlan.lines[index], action: actions[index], pageWords: assignment.byLine[index],
                             sources: assignment.sources[index],
                             lineReading: second[index], plan: plan, policy: policy)
        }
        var fused = fusedLines.indices.compactMap { index -> PlacedLine? in
            fusedLines[index].map { PlacedLine(line: $0, pageReaderPlace: place(assignment.byLine[index])) }
        }
        // The triage's evidence: lines nothing covers, and how far the readers differ where both read.
        let unread = fusedLines.count { $0?.words.isEmpty ?? true }
        var differing = 0.0, compared = 0
        for index in actions.indices where actions[index] == .readAlso && !assignment.byLine[index].isEmpty {
            guard let reading = second[index], !reading.words.isEmpty else { continue }
            // Tesseract's words in the order they run along the line, as the fused line has them.
            let mine = LineFusion.line(linePlan.lines[index], words: assignment.byLine[index], sources: assignment.sources[index],
                                       reader: plan.pageReader).words.map(\.text).joined(separator: " ")
            let theirs = reading.words.map(\.text).joined(separator: " ")
            let length = max(mine.count, theirs.count)
            differing += Triage.difference(mine, theirs) * Double(length)
            compared += length
        }
        // Words the detector saw no line under stay when the page reader is sure of them: the
        // detector misses some text Tesseract reads (a large heading, a lone figure in a table
        // cell), and most of the rest are rules and specks of pictures read as letters.
        // A word the line reader read too (the same text, where their boxes meet: on a line the
        // word lies partly in) is not kept twice.
        let lineWords = fusedLines.compactMap { $0 }.filter { $0.reader != plan.pageReader }.flatMap(\.words)
        let readAgain = { (word: RecognizedWord) in
            lineWords.contains { $0.text.lowercased() == word.text.lowercased() && WordAssignment.share(of: word.box, in: $0.box) > 0 }
        }
        let isSure = { (word: RecognizedWord) in scale.probability(word.confidence) >= policy.sureOutsideWord }
        let outside = assignment.outside.compactMap { line -> PlacedLine? in
            var line = line
            line.words = line.words.filter { isSure($0) && !readAgain($0) }
            guard !line.words.isEmpty else { return nil }
            line.box = .enclosing(line.words.map(\.box))
            line.reader = plan.pageReader
            return PlacedLine(line: line, pageReaderPlace: place(line.words))
        }
        fused += outside
        // The share of the fused page's lines that are the page reader's own.
        let kept = fused.filter { $0.line.reader == plan.pageReader }.count
        let order = FusedOrder.chosen(keptShare: fused.isEmpty ? 0 : Double(kept) / Double(fused.count), policy: policy)
        let dropped = assignment.outside.contains { $0.words.contains { !isSure($0) } }
        var rules = plan.rules
        let outsideRules: [PlanRule] = (outside.isEmpty ? [] : [.wordsOutsideLines]) + (dropped ? [.unsureOutsideWords] : [])
        for rule in actions.map(\.rule) + outsideRules + [order.rule] where !rules.contains(rule) {
            rules.append(rule)
        }
        return PlannedReading(text: order.text(fused, page: signals.size), plan: plan, actions: actions, rules: rules,
                              unreadLines: fusedLines.isEmpty ? nil : Double(unread) / Double(fusedLines.count),
                              disagreement: compared == 0 ? nil : differing / Double(compared), detected: true)
    }
}
