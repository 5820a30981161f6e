import CNeuralKernels
#if canImport(Glibc)
import Glibc
#endif

/// The builds of the hot kernels: this module's own, compiled for AVX2 and FMA on x86-64 (the
/// plain build elsewhere), the packed product's inner loop compiled for AVX-512
/// (`GlossNeuralKernelsAVX512`, twice the floats a register and 32 registers), and the packed
/// product on Intel AMX's bf16 tiles (`CNeuralKernels`: the weights and the activations rounded
/// to bf16, the sums in fp32; the rest of the network as `avx512`).
public enum KernelSet: String, Sendable, Equatable, CaseIterable {
    case avx2
    case avx512
    case amx

    /// Whether the products round their operands to bf16 (the others are fp32 throughout).
    public var isBF16: Bool { self == .amx }
}

/// What this processor runs of the module, decided once for the process: whether it runs the
/// networks at all and which kernels. Signals (the processor's flags, as `/proc/cpuinfo` lists
/// them, and `GLOSS_NEURAL_KERNELS`), then a pure plan (`choose`). A module of its own, compiled
/// for any x86-64 (`Package.swift`): it runs before anything built for AVX2 may.
public struct KernelChoice: Sendable, Equatable {
    /// Whether the processor has what this module is compiled for (AVX2 and FMA on x86-64).
    public var runsNetworks: Bool
    /// The fastest kernels the processor can run.
    public var fastest: KernelSet
    /// The kernels that run: the default (`bf16ByDefault`), unless the environment asked for others.
    public var kernels: KernelSet
    /// Whether the text detector's products run in bf16 too where `kernels` is AMX: only when
    /// asked (`GLOSS_NEURAL_KERNELS=bf16-all`). Otherwise the detector keeps fp32: in bf16 its
    /// map moves near the threshold between close words and joins boxes RapidOCR keeps apart
    /// (`bench/neural/README.md`, "bf16 on AMX").
    public var bf16Detector = false
    /// Whether the recogniser reads in bf16 and reads again in fp32 each line it is unsure of
    /// (`ReadingPolicy.readsAgain`), the classifier staying in fp32: where `kernels` is AMX,
    /// by default (`cascadeByDefault`) or when asked (`GLOSS_NEURAL_KERNELS=cascade`).
    public var cascade = false

    /// Whether AMX's bf16 product runs by default where the processor has it: no. It halves the
    /// recogniser's time but moves about 1 in 100 lines away from RapidOCR's reading (on
    /// RapidOCR's picture, 44 pages: 98.55% of 1,581 lines the same in fp32, 97.53% with the
    /// recogniser in bf16, 96.65% with the detector too; the bar was 0.5 points);
    /// `bench/neural/README.md`, "bf16 on AMX".
    static let bf16ByDefault = false

    /// Whether the cascade (`cascade`) runs by default where the processor has AMX: yes. On 44
    /// bench pages it reads every line as fp32 does, rereading 8 to 10% of them, in 0.69 to 0.71
    /// of fp32's recogniser CPU time (`bench/neural/README.md`, "The cascade").
    static let cascadeByDefault = true

    /// The flags the AMX product needs besides AVX-512's (`/proc/cpuinfo`'s names): the tiles,
    /// their bf16 product, and AVX512-BF16 for rounding the activations.
    static let tileFlags = ["amx_tile", "amx_bf16", "avx512_bf16"]

    /// The flags the AVX-512 build needs: what its `-target-cpu skylake-avx512` lets the compiler
    /// use of AVX-512 (foundation, conflict detection, byte and word, doubleword and quadword,
    /// vector length).
    static let wideFlags = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]

    /// The plan: `flags` the processor's (nil where it is not x86-64: the plain build runs);
    /// `tilesPermitted` whether Linux let the process use AMX's tiles (asked only where the
    /// flags have them); `request` the value of `GLOSS_NEURAL_KERNELS`: `avx2` keeps the AVX-512
    /// build from running (to compare the two on one machine), `avx512` or `fp32` keeps the
    /// products in fp32, `bf16` (or `amx`) runs the recogniser's and classifier's products in
    /// bf16 on AMX, `bf16-all` the detector's too, `cascade` the recogniser's checked by fp32
    /// (`cascade`); any other value, or none, runs the default (`cascadeByDefault`,
    /// `bf16ByDefault`). A request never runs what the processor lacks.
    public static func choose(flags: Set<String>?, tilesPermitted: Bool = false, request: String?) -> KernelChoice {
        guard let flags else { return KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2) }
        let runs = flags.contains("avx2") && flags.contains("fma")
        let wide = runs && wideFlags.allSatisfy(flags.contains)
        let tiles = wide && tilesPermitted && tileFlags.allSatisfy(flags.contains)
        let fastest: KernelSet = tiles ? .amx : wide ? .avx512 : .avx2
        let fastestFP32: KernelSet = wide ? .avx512 : .avx2
        let kernels: KernelSet
        var cascade = false
        switch request {
        case "avx2": kernels = .avx2
        case "avx512", "fp32": kernels = fastestFP32
        case "amx", "bf16", "bf16-all": kernels = fastest
        case "cascade": (kernels, cascade) = (fastest, true)
        default:
            kernels = bf16ByDefault || cascadeByDefault ? fastest : fastestFP32
            cascade = !bf16ByDefault && cascadeByDefault
        }
        let detector = kernels == .amx && request == "bf16-all"
        return KernelChoice(runsNetworks: runs, fastest: fastest, kernels: kernels, bf16Detector: detector,
                            cascade: cascade && kernels == .amx)
    }

    /// This choice with every product in fp32 (the parity tests' networks).
    public var fp32: KernelChoice {
        KernelChoice(runsNetworks: runsNetworks, fastest: fastest, kernels: kernels == .amx ? .avx512 : kernels)
    }

    /// This choice with the recogniser's cascade where the processor has AMX (fp32 elsewhere).
    public var cascading: KernelChoice {
        fastest == .amx ? KernelChoice(runsNetworks: runsNetworks, fastest: fastest, kernels: .amx, cascade: true) : fp32
    }

    /// This process's choice, made the first time it is asked.
    public static let current: KernelChoice = {
        let request = getenv("GLOSS_NEURAL_KERNELS").map { String(cString: $0) }
        #if arch(x86_64)
        let flags = processorFlags() ?? []
        let permitted = tileFlags.allSatisfy(flags.contains) && gloss_amx_request_tiles() == 1
        return choose(flags: flags, tilesPermitted: permitted, request: request)
        #else
        return choose(flags: nil, request: request)
        #endif
    }()

    /// The first `flags` line of `/proc/cpuinfo` (every core lists the same), nil when it cannot
    /// be read.
    static func processorFlags() -> Set<String>? {
        guard let file = fopen("/proc/cpuinfo", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 1 << 14)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("flags") else { continue }
            return Set(text.split { $0 == " " || $0 == "\t" || $0 == "\n" }.map(String.init))
        }
        return nil
    }
}
