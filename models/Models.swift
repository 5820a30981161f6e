import GlossFaceDetection
import GlossNeuralNetwork

#if canImport(Glibc)
import Glibc
#endif

/// The model weights Gloss ships, compiled into the binary so an installed `gloss` needs no
/// files beside it, and the engines built from them. Each model's folder holds its licence, its
/// provenance and the script that regenerates it.
public enum Models {
    /// YuNet (libfacedetection), in Gloss's `GLOSSNN1` format: `yunet/README.md`.
    public static var yunet: [UInt8] { PackageResources.yunet_bin }

    /// Whether this processor runs the neural network module, compiled for AVX2 and FMA on x86.
    public static let supportsNeuralNetwork: Bool = {
        #if arch(x86_64)
        guard let file = fopen("/proc/cpuinfo", "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1 << 14)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("flags") else { continue }
            let flags = Set(text.split { $0 == " " || $0 == "\t" || $0 == "\n" })
            return flags.contains("avx2") && flags.contains("fma")
        }
        return false
        #else
        return true
        #endif
    }()
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
