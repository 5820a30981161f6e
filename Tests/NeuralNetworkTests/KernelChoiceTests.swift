@testable import GlossNeuralKernelChoice
@testable import GlossNeuralNetwork
import Testing

/// Which kernels run, from fake processor flags and requests; the AVX-512 kernels against the
/// AVX2 ones on the same random products, where this processor has both; and the products that
/// read a convolution's taps in place against the gathered ones, with every fp32 kernel it runs.
struct KernelChoiceTests {
    static let haswell: Set<String> = ["sse4_2", "avx", "avx2", "fma", "bmi2"]
    static let skylakeServer = haswell.union(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])

    @Test func aProcessorWithoutAVX2RunsNoNetwork() {
        let choice = KernelChoice.choose(flags: ["sse4_2", "avx"], request: nil)
        #expect(!choice.runsNetworks)
        #expect(choice.kernels == .avx2)
        #expect(KernelChoice.choose(flags: ["sse4_2", "avx"], request: "int16").kernels == .avx2)
    }

    @Test func aProcessorWithAVX2AloneRunsTheIntegerCascade() {
        let choice = KernelChoice.choose(flags: Self.haswell, request: nil)
        #expect(choice == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: KernelChoice.int16CascadeByDefault ? .int16 : .avx2,
                                       cascade: KernelChoice.int16CascadeByDefault))
        #expect(choice.cascading == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .int16, cascade: true))
        #expect(choice.fp32 == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2))
        // Asking for AVX-512 does not run what the processor lacks; fp32 is AVX2's.
        for request in ["avx512", "fp32", "avx2"] {
            #expect(KernelChoice.choose(flags: Self.haswell, request: request)
                == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2), "\(request)")
        }
        #expect(KernelChoice.choose(flags: Self.haswell, request: "int16")
            == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .int16))
        #expect(KernelChoice.choose(flags: Self.haswell, request: "cascade")
            == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .int16, cascade: true))
        // Integers where AVX-512 runs only when asked for.
        #expect(KernelChoice.choose(flags: Self.skylakeServer, request: "int16-cascade")
            == KernelChoice(runsNetworks: true, fastest: .avx512, kernels: .int16, cascade: true))
        #expect(KernelChoice.choose(flags: Self.skylakeServer, request: "cascade").kernels == .avx512)
    }

    @Test func everyFlagTheWideBuildMayUseIsRequired() {
        #expect(KernelChoice.choose(flags: Self.skylakeServer, request: nil).kernels == .avx512)
        for flag in KernelChoice.wideFlags {
            var flags = Self.skylakeServer
            flags.remove(flag)
            #expect(KernelChoice.choose(flags: flags, request: nil).fastest == .avx2, "without \(flag)")
        }
        // AVX-512 without FMA's AVX2 module under it runs nothing.
        #expect(!KernelChoice.choose(flags: Self.skylakeServer.subtracting(["avx2"]), request: nil).runsNetworks)
    }

    @Test func theEnvironmentCanAskForAVX2() {
        #expect(KernelChoice.choose(flags: Self.skylakeServer, request: "avx2")
            == KernelChoice(runsNetworks: true, fastest: .avx512, kernels: .avx2))
        #expect(KernelChoice.choose(flags: Self.skylakeServer, request: "sse").kernels == .avx512)
        #expect(KernelChoice.choose(flags: nil, request: nil) == KernelChoice(runsNetworks: true, fastest: .avx2, kernels: .avx2))
    }

    /// Rows around a pair of panels (12), columns around a pair of tiles (32) and past a block,
    /// depths from one to past the first-level cache's share.
    @Test(.enabled(if: KernelChoice.current.fastest != .avx2, "this processor lacks AVX-512"),
          arguments: [(1, 1, 1), (7, 5, 17), (12, 40, 32), (13, 40, 33), (30, 200, 80), (24, 864, 70), (6, 3, 600),
                      (19, 96, 47)])
    func theAVX512KernelsGiveTheAVX2KernelsSums(rows: Int, inner: Int, columns: Int) {
        let weights = LayerTests.values(rows * inner, seed: 11), input = LayerTests.values(inner * columns, seed: 12)
        let bias = LayerTests.values(rows, seed: 13), residual = LayerTests.values(rows * columns, seed: 14)
        let packed = PackedMatrix(weights, rows: rows, inner: inner, products: .fp32)
        for (activation, withResidual) in [(Activation.none, true), (.relu, false), (.gelu, false)] {
            let run = { (kernels: KernelSet) in
                KernelTests.matrixProduct(packed, input, columns: columns, bias: bias, residual: withResidual ? residual : nil,
                                          activation: activation, kernels: kernels)
            }
            let narrow = run(.avx2), wide = run(.avx512)
            #expect(!wide.contains { $0.isNaN }, "\(rows)x\(inner)x\(columns): a value left unwritten")
            let worst = zip(wide, narrow).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
            #expect(worst <= 1e-5, "\(rows)x\(inner)x\(columns) \(activation): largest relative difference \(worst)")
        }
    }

    /// The fp32 kernels this processor runs: AVX2's, and AVX-512's where it has them.
    static let fp32Kernels: [KernelSet] = KernelChoice.current.fastest == .avx2 ? [.avx2] : [.avx2, .avx512]

    /// A convolution read in place (`multiplyDirect`: the AVX2 micro-kernel, and AVX-512's
    /// `DirectProduct` where it runs) against one gathered into packed tiles (AVX2): the
    /// detector's shapes (the stem's 3x3 of stride 2 with a pooled part, its 2x2 padded at the
    /// bottom right, the head's 3x3 of four parts, a single output), a 3x3 of stride 2 and a 5x5
    /// of two parts without a pool, widths with whole blocks, a lone tile and edge columns. The
    /// same multiply-adds in the same order: the same values.
    @Test(arguments: [(3, 2, 1, 1, true, 24, 75), (2, 1, 0, 1, false, 12, 70), (3, 1, 1, 4, false, 24, 53),
                      (3, 2, 1, 2, false, 1, 100), (3, 1, 1, 1, true, 7, 41), (3, 2, 1, 1, false, 13, 91),
                      (5, 1, 2, 2, false, 8, 60)])
    func aConvolutionReadInPlaceGivesTheGatheredSums(kernel: Int, stride: Int, pad: Int, parts: Int, pooled: Bool,
                                                      outputs: Int, width: Int) {
        let maps = (0..<parts).map { LayerTests.map(3, 6, width, seed: UInt64(30 + $0)) }
        let inner = 3 * parts * kernel * kernel
        let weights = PackedMatrix(LayerTests.values(outputs * inner, seed: 40), rows: outputs, inner: inner, products: .fp32)
        let bias = LayerTests.values(outputs, seed: 41)
        let padding = kernel == 2 ? (0, 0, 1, 1) : (pad, pad, pad, pad)
        func run(_ kernels: KernelSet, inPlace: Bool) -> [Float] {
            var output = ProgramLayerTests.empty(), scratch: [Float] = [], workspace: [Float] = []
            Layers.convolution(parts: parts, { maps[$0] }, pooled: { pooled && $0 == 0 }, weights: weights, bias: bias,
                               kernel: (kernel, kernel), stride: (stride, stride), padding: padding, activation: .relu,
                               into: &output, scratch: &scratch, workspace: &workspace, kernels: kernels,
                               readsInPlace: inPlace)
            return Array(output.values)
        }
        let gathered = run(.avx2, inPlace: false)
        for kernels in Self.fp32Kernels {
            #expect(run(kernels, inPlace: true) == gathered, "\(kernels)")
        }
    }

    /// `multiplyDirect` alone against the packed product of the same columns: step `k` reads a
    /// row of a random plane at its own shift, from `offset` on (every other value from twice
    /// it when `strided`), sixteen or 32 columns, rows around a panel. A wrong tap, offset or
    /// stride reads other values and other sums.
    @Test(arguments: [(5, 1), (13, 27), (24, 72)])
    func theDirectProductReadsEachStepWhereItsTapPoints(rows: Int, inner: Int) {
        let width = 120, lines = 11
        let plane = LayerTests.values(lines * width, seed: 50), bias = LayerTests.values(rows, seed: 51)
        let weights = PackedMatrix(LayerTests.values(rows * inner, seed: 52), rows: rows, inner: inner, products: .fp32)
        // Step k reads line (7k mod 11), shifted by k mod 5.
        let starts = (0..<inner).map { k in (7 * k) % lines * width + k % 5 }
        for kernels in Self.fp32Kernels {
            for (strided, offset, columns) in [(false, 0, 16), (false, 3, 32), (true, 0, 32), (true, 5, 16), (true, 2, 32)] {
                let step = strided ? 2 : 1
                let input = (0..<inner).flatMap { k in (0..<columns).map { plane[starts[k] + step * (offset + $0)] } }
                let expected = KernelTests.matrixProduct(weights, input, columns: columns, bias: bias, residual: nil,
                                                         activation: .gelu, kernels: kernels)
                var out = [Float](repeating: .nan, count: rows * columns)
                plane.withUnsafeBufferPointer { p in
                    let taps = starts.map { p.baseAddress! + $0 }
                    taps.withUnsafeBufferPointer { t in
                        out.withUnsafeMutableBufferPointer { o in
                            Kernels.multiplyDirect(weights, taps: t.baseAddress!, offset: offset, columns: columns,
                                                   strided: strided, bias: bias, activation: .gelu,
                                                   output: Kernels.Destination(base: o.baseAddress!, rowStride: columns,
                                                                               tileStride: Kernels.tileColumns),
                                                   kernels: kernels)
                        }
                    }
                }
                #expect(out == expected, "\(kernels) strided \(strided) offset \(offset) columns \(columns)")
            }
        }
    }

    /// Into a packed block (the fused mixer's hidden channels): the padding columns of the last
    /// tile are written too, alike by both.
    @Test(.enabled(if: KernelChoice.current.fastest != .avx2, "this processor lacks AVX-512"))
    func theAVX512KernelsFillAPackedBlockAsTheAVX2KernelsDo() {
        let rows = 20, inner = 24, columns = 41, tiles = (columns + 15) / 16
        let packed = PackedMatrix(LayerTests.values(rows * inner, seed: 21), rows: rows, inner: inner, products: .fp32)
        var input = [Float](repeating: 0, count: tiles * inner * 16)
        let values = LayerTests.values(inner * columns, seed: 22), bias = LayerTests.values(rows, seed: 23)
        input.withUnsafeMutableBufferPointer { Kernels.pack(values, stride: columns, depth: inner, columns: columns, into: $0.baseAddress!) }
        var results: [[Float]] = []
        for kernels in KernelSet.allCases {
            var out = [Float](repeating: .nan, count: tiles * rows * 16)
            out.withUnsafeMutableBufferPointer { o in
                Kernels.multiplyPacked(packed, packed: input, columns: columns, bias: bias, activation: .gelu, residual: nil,
                                       residualStride: 0,
                                       output: Kernels.Destination(base: o.baseAddress!, rowStride: 16, tileStride: rows * 16),
                                       kernels: kernels)
            }
            results.append(out)
        }
        #expect(!results[1].contains { $0.isNaN })
        let worst = zip(results[0], results[1]).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .infinity
        #expect(worst <= 1e-5, "largest relative difference \(worst)")
    }
}

/// The AMX plan: its flags, Linux's permission, and the requests that keep fp32.
struct AMXChoiceTests {
    static let sapphireRapids = KernelChoiceTests.skylakeServer.union(["avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"])

    @Test func aProcessorWithAMXRunsTheBF16ProductWhenAsked() {
        let choice = KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: nil)
        let byDefault = KernelChoice.bf16ByDefault || KernelChoice.cascadeByDefault
        #expect(choice == KernelChoice(runsNetworks: true, fastest: .amx, kernels: byDefault ? .amx : .avx512,
                                       cascade: KernelChoice.cascadeByDefault && !KernelChoice.bf16ByDefault))
        #expect(!choice.reducedDetector)
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "bf16")
            == KernelChoice(runsNetworks: true, fastest: .amx, kernels: .amx, reducedDetector: false))
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "bf16-all")
            == KernelChoice(runsNetworks: true, fastest: .amx, kernels: .amx, reducedDetector: true))
    }

    @Test func theCascadeRunsByDefaultOrWhenAskedWhereAMXDoes() {
        let cascade = KernelChoice(runsNetworks: true, fastest: .amx, kernels: .amx, cascade: true)
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "cascade") == cascade)
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: nil).cascade == KernelChoice.cascadeByDefault)
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "bf16").cascade == false,
                "bf16 alone, as asked")
        // Without AMX, asked or not, fp32 reads alone.
        for request in ["cascade", nil] {
            let choice = KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: false, request: request)
            #expect(choice == KernelChoice(runsNetworks: true, fastest: .avx512, kernels: .avx512), "\(request ?? "none")")
        }
        // The choices the tests build: fp32 throughout, and the cascade where AMX runs.
        #expect(cascade.fp32 == KernelChoice(runsNetworks: true, fastest: .amx, kernels: .avx512))
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "bf16-all").cascading == cascade)
        let wide = KernelChoice(runsNetworks: true, fastest: .avx512, kernels: .avx512)
        #expect(wide.cascading == wide)
    }

    @Test func fp32CanBeAskedFor() {
        for request in ["fp32", "avx512"] {
            #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: request)
                == KernelChoice(runsNetworks: true, fastest: .amx, kernels: .avx512))
        }
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: true, request: "avx2").kernels == .avx2)
    }

    @Test func withoutLinuxsPermissionOrAFlagTheProductsStayFP32() {
        #expect(KernelChoice.choose(flags: Self.sapphireRapids, tilesPermitted: false, request: "amx")
            == KernelChoice(runsNetworks: true, fastest: .avx512, kernels: .avx512))
        for flag in KernelChoice.tileFlags {
            var flags = Self.sapphireRapids
            flags.remove(flag)
            #expect(KernelChoice.choose(flags: flags, tilesPermitted: true, request: nil).kernels == .avx512, "without \(flag)")
        }
        // The tiles' flags without AVX-512's: AVX2.
        let flags = Self.sapphireRapids.subtracting(["avx512bw"])
        #expect(KernelChoice.choose(flags: flags, tilesPermitted: true, request: nil).kernels.fp32 == .avx2)
        // Asking for AMX on a processor without it runs the fastest fp32 kernels.
        #expect(KernelChoice.choose(flags: KernelChoiceTests.skylakeServer, request: "amx").kernels == .avx512)
    }
}

/// The plan where AVX-512 comes with VNNI (Ice Lake and later Xeons, AMD's Zen 4): the integer
/// cascade on `VPDPWSSD`, AVX2's integer kernel when asked, fp32 when asked.
struct VNNIChoiceTests {
    static let iceLakeServer = KernelChoiceTests.skylakeServer.union(["avx512_vnni"])

    @Test func aProcessorWithVNNIRunsTheWideIntegerCascade() {
        let choice = KernelChoice.choose(flags: Self.iceLakeServer, request: nil)
        #expect(choice == KernelChoice(runsNetworks: true, fastest: .vnni,
                                       kernels: KernelChoice.vnniCascadeByDefault ? .vnni : .avx512,
                                       cascade: KernelChoice.vnniCascadeByDefault))
        #expect(!choice.reducedDetector)
        #expect(choice.cascading == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .vnni, cascade: true))
        #expect(choice.fp32 == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .avx512))
    }

    @Test func theRequestsPickTheIntegerKernelOrFP32() {
        func kernels(_ request: String) -> KernelChoice { KernelChoice.choose(flags: Self.iceLakeServer, request: request) }
        #expect(kernels("int16") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .vnni))
        #expect(kernels("int16-avx2") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .int16))
        #expect(kernels("int16-cascade") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .vnni, cascade: true))
        #expect(kernels("int16-all") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .vnni, reducedDetector: true,
                                                     cascade: true))
        #expect(kernels("cascade") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .vnni, cascade: true))
        for request in ["avx512", "fp32", "bf16", "amx"] {
            #expect(kernels(request) == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .avx512), "\(request)")
        }
        #expect(kernels("avx2") == KernelChoice(runsNetworks: true, fastest: .vnni, kernels: .avx2))
        // VNNI without the rest of the AVX-512 build is AVX2's integer cascade.
        let partial = KernelChoice.choose(flags: KernelChoiceTests.haswell.union(["avx512_vnni", "avx512f"]), request: nil)
        #expect(partial.fastest == .avx2 && partial.kernels != .vnni)
    }

    @Test func tilesWinOverVNNIWhereLinuxLetsThemRun() {
        let flags = AMXChoiceTests.sapphireRapids.union(["avx512_vnni"])
        #expect(KernelChoice.choose(flags: flags, tilesPermitted: true, request: nil).fastest == .amx)
        #expect(KernelChoice.choose(flags: flags, tilesPermitted: true, request: "int16").kernels == .vnni)
        let refused = KernelChoice.choose(flags: flags, tilesPermitted: false, request: nil)
        #expect(refused.fastest == .vnni && refused.kernels == (KernelChoice.vnniCascadeByDefault ? .vnni : .avx512))
    }
}
