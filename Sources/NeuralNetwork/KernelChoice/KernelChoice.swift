#if canImport(Glibc)
import Glibc
#endif

/// The builds of the hot kernels: this module's own, compiled for AVX2 and FMA on x86-64 (the
/// plain build elsewhere), and the packed product's inner loop compiled for AVX-512
/// (`GlossNeuralKernelsAVX512`, twice the floats a register and 32 registers).
public enum KernelSet: String, Sendable, Equatable, CaseIterable {
    case avx2
    case avx512
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
    /// The kernels that run: the fastest, unless the environment asked for AVX2.
    public var kernels: KernelSet

    /// The flags the AVX-512 build needs: what its `-target-cpu skylake-avx512` lets the compiler
    /// use of AVX-512 (foundation, conflict detection, byte and word, doubleword and quadword,
    /// vector length).
    static let wideFlags = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]

    /// The plan: `flags` the processor's (nil where it is not x86-64: the plain build runs);
    /// `request` the value of `GLOSS_NEURAL_KERNELS`. `avx2` keeps the AVX-512 build from running
    /// (to compare the two on one machine); any other value, or none, runs the fastest. A
    /// request never runs what the processor lacks.
    public static func choose(flags: Set<String>?, request: String?) -> KernelChoice {
        guard let flags else { return KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2) }
        let runs = flags.contains("avx2") && flags.contains("fma")
        let fastest: KernelSet = runs && wideFlags.allSatisfy(flags.contains) ? .avx512 : .avx2
        let kernels: KernelSet = request == KernelSet.avx2.rawValue ? .avx2 : fastest
        return KernelChoice(runsNetworks: runs, fastest: fastest, kernels: kernels)
    }

    /// This process's choice, made the first time it is asked.
    public static let current: KernelChoice = {
        let request = getenv("GLOSS_NEURAL_KERNELS").map { String(cString: $0) }
        #if arch(x86_64)
        return choose(flags: processorFlags() ?? [], request: request)
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
