import CNeuralKernels
#if canImport(Glibc)
import Glibc
#endif

/// The builds of the hot kernels: this module's own, compiled for AVX2 and FMA on x86-64 (the
/// plain build elsewhere), the packed product's inner loop compiled for AVX-512
/// (`GlossNeuralKernelsAVX512`, twice the floats a register and 32 registers), and the packed
/// product on Intel AMX's bf16 tiles (`CNeuralKernels`: the weights and the activations rounded
/// to bf16, the sums in fp32; the rest of the network as `avx512`), the packed product in
/// 16-bit integers on AVX2 (`int16`: `CNeuralKernels`' `VPMADDWD` kernel, the weights scaled
/// row by row and the activations column by column, the sums in 32 bits; the rest as `avx2`),
/// and the same integers on AVX-512 VNNI (`vnni`: `VPDPWSSD`, four tiles of columns at once,
/// the same sums bit for bit; the rest as `avx512`).
public enum KernelSet: String, Sendable, Equatable, CaseIterable {
    case avx2
    case avx512
    case amx
    case int16
    case vnni

    /// What the packed products of a network built for these kernels multiply.
    public var products: Products {
        switch self {
        case .avx2, .avx512: .fp32
        case .amx: .bf16
        case .int16, .vnni: .int16
        }
    }

    /// Whether the products round their operands to bf16 (the others are fp32 or integers).
    public var isBF16: Bool { products == .bf16 }

    /// The fp32 kernels of the same build (what runs where a matrix has no reduced copy).
    public var fp32: KernelSet {
        switch self {
        case .avx2, .int16: .avx2
        case .avx512, .amx, .vnni: .avx512
        }
    }
}

/// What a network's packed matrix products multiply: fp32 values, bf16 ones (AMX's tiles), or
/// 16-bit integers (AVX2's `VPMADDWD`); the sums are fp32, or 32-bit integers scaled back.
public enum Products: String, Sendable, Equatable, CaseIterable {
    case fp32
    case bf16
    case int16
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
    /// Whether the text detector's products are reduced too (`kernels.products`): on AMX only
    /// when asked (`GLOSS_NEURAL_KERNELS=bf16-all`), as in bf16 its map moves near the
    /// threshold between close words and joins boxes RapidOCR keeps apart
    /// (`bench/neural/README.md`, "bf16 on AMX"); in 16-bit integers by default
    /// (`int16DetectorByDefault`) or when asked (`int16-all`).
    public var reducedDetector = false
    /// Whether the recogniser reads with reduced products (bf16 on AMX, 16-bit integers on
    /// AVX2 alone) and reads again in fp32 each line it is unsure of
    /// (`ReadingPolicy.readsAgain`), the classifier staying in fp32: by default
    /// (`cascadeByDefault`, `int16CascadeByDefault`) or when asked (`GLOSS_NEURAL_KERNELS=cascade`).
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

    /// Whether the 16-bit integer cascade runs by default where the processor has AVX2 but not
    /// AVX-512: yes. Its products run at about 1.6 times fp32's rate on an AMD EPYC (Zen 3)
    /// (`bench/neural/README.md`, "16-bit products on AVX2"). With AVX-512 alone the wide fp32
    /// kernel is as fast, so it is only run when asked there (`GLOSS_NEURAL_KERNELS=int16`); with
    /// AVX-512 VNNI the wide integer kernel runs (`vnniCascadeByDefault`).
    static let int16CascadeByDefault = true

    /// Whether the integer cascade runs by default where the processor has AVX-512 VNNI (and no
    /// AMX): yes. `VPDPWSSD` sums twice the products of an fp32 `VFMADD` in the same time, and
    /// its sums are the AVX2 kernel's, so it reads every line the AVX2 cascade reads
    /// (`bench/neural/README.md`, "16-bit products on AVX-512 VNNI").
    static let vnniCascadeByDefault = true

    /// Whether the detector's products run in 16-bit integers where the cascade's do by default.
    static let int16DetectorByDefault = false

    /// The flags the AMX product needs besides AVX-512's (`/proc/cpuinfo`'s names): the tiles,
    /// their bf16 product, and AVX512-BF16 for rounding the activations.
    static let tileFlags = ["amx_tile", "amx_bf16", "avx512_bf16"]

    /// The flags the AVX-512 build needs: what its `-target-cpu skylake-avx512` lets the compiler
    /// use of AVX-512 (foundation, conflict detection, byte and word, doubleword and quadword,
    /// vector length).
    static let wideFlags = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]

    /// The flag the wide integer kernel (`vnni`) needs besides the AVX-512 build's.
    static let vnniFlags = ["avx512_vnni"]

    /// The plan: `flags` the processor's (nil where it is not x86-64: the plain build runs);
    /// `tilesPermitted` whether Linux let the process use AMX's tiles (asked only where the
    /// flags have them); `request` the value of `GLOSS_NEURAL_KERNELS`: `avx2` keeps the AVX-512
    /// build from running (to compare the two on one machine), `avx512` or `fp32` keeps the
    /// products in fp32, `bf16` (or `amx`) runs the recogniser's and classifier's products in
    /// bf16 on AMX, `bf16-all` the detector's too, `cascade` the recogniser's checked by fp32
    /// (`cascade`: the processor's `cascadeKernels`), `int16` the recogniser's and
    /// classifier's in 16-bit integers (with AVX-512 VNNI's kernel where the processor has it,
    /// `int16-avx2` AVX2's), `int16-cascade` the recogniser's checked by fp32, `int16-all` that
    /// and the detector's in integers; any other value, or none, runs the default
    /// (`cascadeByDefault`, `bf16ByDefault`, `int16CascadeByDefault`, `vnniCascadeByDefault`,
    /// `int16DetectorByDefault`). A request never runs what the processor lacks.
    public static func choose(flags: Set<String>?, tilesPermitted: Bool = false, request: String?) -> KernelChoice {
        guard let flags else { return KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2) }
        let runs = flags.contains("avx2") && flags.contains("fma")
        guard runs else { return KernelChoice(runsNetworks: false, fastest: .avx2, kernels: .avx2) }
        let wide = runs && wideFlags.allSatisfy(flags.contains)
        let tiles = wide && tilesPermitted && tileFlags.allSatisfy(flags.contains)
        let vnni = wide && vnniFlags.allSatisfy(flags.contains)
        let fastest: KernelSet = tiles ? .amx : vnni ? .vnni : wide ? .avx512 : .avx2
        let fastestFP32: KernelSet = wide ? .avx512 : .avx2
        let integers: KernelSet = vnni ? .vnni : .int16
        let bf16: KernelSet = tiles ? .amx : fastestFP32
        let reduced = cascadeKernels(fastest: fastest)
        let kernels: KernelSet
        var cascade = false, detector = false
        switch request {
        case "avx2": kernels = .avx2
        case "avx512", "fp32": kernels = fastestFP32
        case "amx", "bf16": kernels = bf16
        case "bf16-all": (kernels, detector) = (bf16, true)
        case "cascade": (kernels, cascade) = (reduced ?? fastestFP32, true)
        case "int16": kernels = integers
        case "int16-avx2": kernels = .int16
        case "int16-cascade": (kernels, cascade) = (integers, true)
        case "int16-all": (kernels, cascade, detector) = (integers, true, true)
        default:
            switch reduced {
            case .amx:
                kernels = bf16ByDefault || cascadeByDefault ? .amx : fastestFP32
                cascade = !bf16ByDefault && cascadeByDefault
            case .int16 where int16CascadeByDefault: (kernels, cascade, detector) = (.int16, true, int16DetectorByDefault)
            case .vnni where vnniCascadeByDefault: (kernels, cascade, detector) = (.vnni, true, int16DetectorByDefault)
            default: kernels = fastestFP32
            }
        }
        return KernelChoice(runsNetworks: runs, fastest: fastest, kernels: kernels, reducedDetector: detector && kernels.products != .fp32,
                            cascade: cascade && kernels.products != .fp32)
    }

    /// This choice with every product in fp32 (the parity tests' networks).
    public var fp32: KernelChoice {
        KernelChoice(runsNetworks: runsNetworks, fastest: fastest, kernels: kernels.fp32)
    }

    /// The reduced products the cascade runs where `fastest` are the fastest kernels: bf16 on
    /// AMX, 16-bit integers on AVX2 alone and on AVX-512 VNNI; none with AVX-512 alone, whose
    /// fp32 kernel is about as fast as AVX2's integer one.
    static func cascadeKernels(fastest: KernelSet) -> KernelSet? {
        switch fastest {
        case .amx: .amx
        case .vnni: .vnni
        case .avx2, .int16: .int16
        case .avx512: nil
        }
    }

    /// This choice with the recogniser's cascade where the processor has one
    /// (`cascadeKernels`), fp32 elsewhere.
    public var cascading: KernelChoice {
        guard let kernels = Self.cascadeKernels(fastest: fastest) else { return fp32 }
        return KernelChoice(runsNetworks: runsNetworks, fastest: fastest, kernels: kernels, cascade: true)
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
