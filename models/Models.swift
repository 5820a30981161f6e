import CEmbeddedFiles
import CPPOCRModels
import GlossFaceDetection
import GlossNeuralKernelChoice
import GlossNeuralNetwork
import GlossNeuralReading

#if canImport(Glibc)
import Glibc
#endif

/// The model weights Gloss ships, compiled into the binary so an installed `gloss` needs no
/// files beside it, and the engines built from them. Each model's folder holds its licence, its
/// provenance and the script that regenerates it.
public enum Models {
    /// YuNet (libfacedetection), in Gloss's `GLOSSNN1` format: `yunet/README.md`, compiled in by
    /// `Sources/CEmbeddedFiles`.
    public static var yunet: [UInt8] { Array(embedded(gloss_embedded_yunet)) }

    /// PP-OCRv6's detector, recogniser and line classifier in `GLOSSNN1` version 2, and the
    /// recogniser's dictionary (`ppocr/README.md`): bytes assembled into the binary, read in
    /// place, valid as long as the process.
    public static var ppocrDetector: UnsafeRawBufferPointer { embedded(gloss_ppocr_detector) }
    public static var ppocrRecogniser: UnsafeRawBufferPointer { embedded(gloss_ppocr_recogniser) }
    public static var ppocrClassifier: UnsafeRawBufferPointer { embedded(gloss_ppocr_classifier) }
    public static var ppocrCharacters: UnsafeRawBufferPointer { embedded(gloss_ppocr_characters) }

    private static func embedded(_ accessor: (UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>?) -> UnsafeRawBufferPointer {
        var count = 0
        let start = accessor(&count)
        return UnsafeRawBufferPointer(start: start, count: start == nil ? 0 : count)
    }

    /// Tells the kernel that the whole pages of `bytes`, read-only data of the binary that has
    /// been copied out, need not stay in memory: read, they stay resident (31 MB for the
    /// PP-OCRv6 models) until the kernel needs the room; dropped, they are read from the binary
    /// again if asked for.
    static func releasePages(of bytes: UnsafeRawBufferPointer) {
        #if canImport(Glibc)
        guard let base = bytes.baseAddress else { return }
        let page = sysconf(Int32(_SC_PAGESIZE))
        guard page > 0 else { return }
        let first = (Int(bitPattern: base) + page - 1) / page * page, end = (Int(bitPattern: base) + bytes.count) / page * page
        guard end > first, let start = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(start, end - first, MADV_DONTNEED)
        #endif
    }

    /// Whether this processor runs the neural network module, compiled for AVX2 and FMA on x86
    /// (`KernelChoice`, which also picks its AVX-512 kernels where the processor has them).
    public static var supportsNeuralNetwork: Bool { KernelChoice.current.runsNetworks }
}

extension YuNetDetector {
    /// The detector with the weights compiled into Gloss.
    public static func bundled(options: Options = Options()) throws(ModelError) -> YuNetDetector {
        try loaded(from: nil, options: options)
    }

    /// The detector with the weights of the model file at `path`, or the built-in ones when nil.
    public static func loaded(from path: String?, options: Options = Options()) throws(ModelError) -> YuNetDetector {
        let name = path ?? "models/yunet/yunet.bin (built in)"
        guard Models.supportsNeuralNetwork else {
            throw ModelError(path: name, reason: "this processor lacks AVX2 and FMA, which Gloss's CNN is built for; use --faces cascade")
        }
        let model: ModelFile
        if let path {
            model = try ModelFile(contentsOf: path)
        } else {
            model = try ModelFile(bytes: Models.yunet, path: name)
        }
        return try YuNetDetector(model: model, path: name, options: options)
    }
}

/// The three PP-OCRv6 networks and the dictionary, built and checked against each other.
public struct PPOCRNetworks: Sendable {
    public var detector: Network
    public var recogniser: Network
    /// The recogniser in fp32, reading again the lines the bf16 one is unsure of
    /// (`KernelChoice.cascade`); nil when `recogniser` reads alone.
    public var recheck: Network?
    public var classifier: Network
    public var characters: [String]

    /// The built-in models. Their bytes are copied into the networks' weights as they are
    /// built, so their pages of the binary are then let go (`Models.releasePages`).
    public static func bundled(choice: KernelChoice = .current) throws(NeuralModelError) -> PPOCRNetworks {
        let embedded = [Models.ppocrDetector, Models.ppocrRecogniser, Models.ppocrClassifier, Models.ppocrCharacters]
        defer { embedded.forEach(Models.releasePages(of:)) }
        return try PPOCRNetworks(detector: embedded[0], recogniser: embedded[1], classifier: embedded[2], characters: embedded[3],
                                 choice: choice)
    }

    /// The built-in line classifier alone (fp32), for a page's way up before any reading
    /// (`LineTurns`): 0.6 MB, where the three networks are 30.
    public static func bundledClassifier() throws(NeuralModelError) -> Network {
        guard Models.supportsNeuralNetwork else {
            throw NeuralModelError(model: nil, reason: "this processor lacks AVX2 and FMA, which Gloss's network code is built for")
        }
        let bytes = Models.ppocrClassifier
        defer { Models.releasePages(of: bytes) }
        return try network(file(bytes, model: .classifier, outputs: 2), model: .classifier, products: .fp32)
    }

    /// Builds each network from its model's bytes, checking on the way what a damaged or
    /// mismatched file gets wrong: the magic, sizes and shapes (`ModelFile`, `Network`), each
    /// network taking three channels, the detector giving one map, the classifier two
    /// classes, and the recogniser as many classes as the dictionary has characters plus the
    /// blank and the space.
    /// `choice` says which products run in bf16 (`KernelChoice.current`: the process's).
    public init(detector: UnsafeRawBufferPointer, recogniser: UnsafeRawBufferPointer, classifier: UnsafeRawBufferPointer,
                characters: UnsafeRawBufferPointer, choice: KernelChoice = .current) throws(NeuralModelError) {
        guard Models.supportsNeuralNetwork else {
            throw NeuralModelError(model: nil, reason: "this processor lacks AVX2 and FMA, which Gloss's network code is built for; use --engine tesseract")
        }
        guard let text = String(validating: characters, as: UTF8.self), text.hasSuffix("\n") else {
            throw NeuralModelError(model: .characters, reason: "not UTF-8 text of one character a line")
        }
        let list = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard !list.isEmpty, list.allSatisfy({ !$0.isEmpty }) else {
            throw NeuralModelError(model: .characters, reason: "an empty line")
        }
        self.characters = list
        self.detector = try Self.network(Self.file(detector, model: .detector, outputs: 1), model: .detector,
                                             products: choice.reducedDetector ? choice.kernels.products : .fp32)
        // Reduced products where the kernels have them (bf16 on AMX, 16-bit integers on AVX2 alone),
        // but for the detector unless `KernelChoice.reducedDetector`; in the cascade the
        // recogniser is there twice (reduced, and fp32 to read again, sharing its weights) and the
        // classifier in fp32.
        let reader = try Self.network(Self.file(recogniser, model: .recogniser, outputs: list.count + 2), model: .recogniser,
                                      products: choice.kernels.products)
        self.recogniser = reader
        self.recheck = choice.cascade ? reader.withFP32Products : nil
        self.classifier = try Self.network(Self.file(classifier, model: .classifier, outputs: 2), model: .classifier,
                                           products: choice.cascade ? .fp32 : choice.kernels.products)
    }

    /// The model file of `bytes`, checked.
    private static func file(_ bytes: UnsafeRawBufferPointer, model: NeuralModel, outputs: Int) throws(NeuralModelError) -> ModelFile {
        do {
            let file = try ModelFile(bytes: bytes, path: model.file)
            try checkShapes(of: file, model: model, outputs: outputs)
            return file
        } catch {
            throw NeuralModelError(model: model, reason: error.reason)
        }
    }

    private static func network(_ file: ModelFile, model: NeuralModel, products: Products) throws(NeuralModelError) -> Network {
        do {
            return try Network(model: file, path: model.file, products: products)
        } catch {
            throw NeuralModelError(model: model, reason: error.reason)
        }
    }

    /// The first weighted line reads 3 channels, the last gives `outputs`.
    private static func checkShapes(of file: ModelFile, model: NeuralModel, outputs: Int) throws(ModelError) {
        let weighted = file.program.split(separator: "\n").filter { $0.contains(" weight=") }
        func weight(_ line: Substring?) throws(ModelError) -> (shape: [Int], transposed: Bool) {
            guard let line, let word = line.split(separator: " ").first(where: { $0.hasPrefix("weight=") }) else {
                throw ModelError(path: model.file, reason: "a program without weighted layers")
            }
            let tensor = try file.tensor(String(word.dropFirst("weight=".count)), path: model.file)
            return (tensor.shape, line.contains(" = deconv "))
        }
        let first = try weight(weighted.first), last = try weight(weighted.last)
        guard first.shape.count == 4, first.shape[1] == 3 else {
            throw ModelError(path: model.file, reason: "the first layer takes \(first.shape) weights, not 3 channels")
        }
        let given = last.transposed ? (last.shape.count > 1 ? last.shape[1] : 0) : last.shape[0]
        guard given == outputs else {
            throw ModelError(path: model.file, reason: "the last layer gives \(given) outputs where \(outputs) are needed"
                             + (model == .recogniser ? " (the dictionary's characters, the blank and the space)" : ""))
        }
    }
}

extension NeuralReader {
    /// The reader with the models compiled into Gloss.
    /// `choice` says which products run in bf16 (`KernelChoice.current`: the process's).
    public static func bundled(policy: ReadingPolicy = ReadingPolicy(), choice: KernelChoice = .current) throws(NeuralModelError) -> NeuralReader {
        let networks = try PPOCRNetworks.bundled(choice: choice)
        return NeuralReader(detector: networks.detector, recogniser: networks.recogniser, recheck: networks.recheck,
                            classifier: networks.classifier,
                            characters: networks.characters, policy: policy)
    }
}
