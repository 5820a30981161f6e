/// The parts of the neural reader that come from `models/ppocr/`.
public enum NeuralModel: String, Sendable, CaseIterable {
    case detector, recogniser, classifier, characters

    /// The file it was made from, as the built-in copy names it.
    public var file: String {
        switch self {
        case .detector: "models/ppocr/ppocr-det.bin"
        case .recogniser: "models/ppocr/ppocr-rec.bin"
        case .classifier: "models/ppocr/ppocr-cls.bin"
        case .characters: "models/ppocr/ppocr-rec.characters"
        }
    }
}

/// Why the neural reader cannot be built: a model missing, damaged or not matching the others,
/// or a processor its network code cannot run on. One error, naming the model and the cause;
/// Tesseract reading is not touched by it.
public struct NeuralModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The model at fault; nil when the reader as a whole cannot run (the processor).
    public var model: NeuralModel?
    public var reason: String

    public init(model: NeuralModel?, reason: String) {
        self.model = model
        self.reason = reason
    }

    public var description: String {
        guard let model else { return "the neural reader (--engine neural): \(reason)" }
        return "the neural reader's \(model.rawValue) (\(model.file), built in): \(reason)"
    }
}
