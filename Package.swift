// swift-tools-version: 6.0
import PackageDescription

/// Strict settings shared by every Swift target: Swift 6 mode already implies complete
/// concurrency checking; warnings are treated as defects by `make build`.
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

/// The CNN's layers are compiled for AVX2 and FMA (x86-64 since 2013): three times as fast as the
/// baseline's SSE2 (`make bench-faces`). Only that module: `KernelChoice` (its own module, built
/// for any x86-64) checks the processor before any of it runs, and the rest of Gloss runs anywhere.
/// The packed product's inner loop again for AVX-512 (`GlossNeuralKernelsAVX512`), run only
/// where `KernelChoice` finds AVX-512's F, CD, BW, DQ and VL: `skylake-avx512`, the first
/// processor with them all, whose 16-float vectors stay whole `zmm` registers (`objdump -d`;
/// its tuning's preference for 256 bits binds only the loop vectoriser).
/// Test targets are compiled without the optimiser, even in the release builds that `make test`
/// and the sanitizers run: they arrange pages and check what came back, and the code they call
/// is the optimised library's. `PipelineTests` took 85 s to optimise, alone at the end of every
/// build; unoptimised, a clean test build takes 181 s instead of 236 s, and the suite as long as
/// before (December 2026, two cores). `NeuralNetworkTests` is the exception: it computes its
/// reference products itself, and unoptimised its model check took 93 s instead of 25 s.
let testSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-Onone"], .when(configuration: .release))]

#if arch(x86_64)
let vectorSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-target-cpu", "haswell"])]
let wideVectorSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-target-cpu", "skylake-avx512"])]
#else
let vectorSettings: [SwiftSetting] = swiftSettings
let wideVectorSettings: [SwiftSetting] = swiftSettings
#endif

let package = Package(
    name: "Gloss",
    products: [
        .library(
            name: "Gloss",
            targets: [
                "GlossGeometry", "GlossContract", "GlossImaging", "GlossNeuralNetwork", "GlossModels", "GlossTextRecognition",
                "GlossPreparation", "GlossFaceDetection", "GlossPipeline", "GlossReports", "GlossIndex", "GlossPDFGraft",
                "GlossHTTP", "GlossServe",
            ]
        ),
        .executable(name: "gloss", targets: ["gloss"]),
        // Draws one PDF page for Gloss, in a process of its own (Sources/Imaging/PDFRenderProcess.swift).
        .executable(name: "gloss-render", targets: ["gloss-render"]),
    ],
    targets: [
        // C libraries from Debian, one tiny module each.
        .systemLibrary(
            name: "CLeptonica", path: "Sources/CLeptonica",
            providers: [.apt(["libleptonica-dev"])]
        ),
        .systemLibrary(
            name: "CTesseract", path: "Sources/CTesseract",
            providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]
        ),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        .systemLibrary(
            name: "CWebP", path: "Sources/CWebP",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(
            name: "CPoppler", path: "Sources/CPoppler", pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CMalloc", path: "Sources/CMalloc",
            providers: [.apt(["libc6-dev"])]
        ),
        .systemLibrary(
            name: "CQPDF", path: "Sources/CQPDF",
            providers: [.apt(["libqpdf-dev"])]
        ),
        // libqpdf's content-stream tokeniser, which only its C++ API offers, behind two C functions.
        .target(
            name: "CQPDFContent", dependencies: ["CQPDF"], path: "Sources/CQPDFContent", exclude: ["README.md"],
            cxxSettings: [.define("POINTERHOLDER_TRANSITION", to: "4")], linkerSettings: [.linkedLibrary("qpdf")]
        ),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),

        // The library, one module per responsibility.
        .target(name: "GlossGeometry", path: "Sources/Geometry", exclude: ["README.md"], swiftSettings: swiftSettings),
        .target(
            name: "GlossContract", dependencies: ["GlossGeometry"],
            path: "Sources/Contract", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossImaging", dependencies: ["GlossGeometry", "CLeptonica", "CPNG", "CTurboJPEG", "CWebP", "CPoppler", "CImagingKernels"],
            path: "Sources/Imaging", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        // The levelling's resample with AVX2's gathers, in C for the per-function target (the
        // Swift modules are built for any x86-64); the same bytes on any processor.
        .target(name: "CImagingKernels", path: "Sources/CImagingKernels", exclude: ["README.md"]),
        .target(
            name: "GlossNeuralNetwork",
            dependencies: ["GlossNeuralKernelChoice", "GlossNeuralKernelsAVX512", "GlossNeuralActivation", "CNeuralKernels"],
            path: "Sources/NeuralNetwork", exclude: ["README.md", "KernelChoice", "AVX512", "Activation"], swiftSettings: vectorSettings
        ),
        .target(
            name: "GlossNeuralKernelChoice", dependencies: ["CNeuralKernels"], path: "Sources/NeuralNetwork/KernelChoice",
            swiftSettings: swiftSettings
        ),
        // The AMX (bf16 tiles) product and its AVX512-BF16 packing, in C for the tile intrinsics:
        // each function carries its own target attribute, so the module builds for any x86-64.
        .target(name: "CNeuralKernels", path: "Sources/CNeuralKernels", exclude: ["README.md"]),
        .target(name: "GlossNeuralKernelsAVX512", dependencies: ["GlossNeuralActivation"], path: "Sources/NeuralNetwork/AVX512",
                swiftSettings: wideVectorSettings),
        // The activations and the products' stores, all inlined into the two kernel modules
        // above, which compile them for their own processors.
        .target(name: "GlossNeuralActivation", path: "Sources/NeuralNetwork/Activation", swiftSettings: swiftSettings),
        // The PP-OCRv6 weights, assembled into the binary with `.incbin` (models/ppocr/README.md).
        .target(name: "CPPOCRModels", path: "Sources/CPPOCRModels", exclude: ["README.md"], cSettings: [.headerSearchPath(".")]),
        // YuNet's weights, the report's templates and the sRGB profile, compiled in by C23's #embed.
        .target(name: "CEmbeddedFiles", path: "Sources/CEmbeddedFiles", exclude: ["README.md"], cSettings: [.unsafeFlags(["-std=c23"])]),
        .target(
            name: "GlossModels", dependencies: ["GlossFaceDetection", "GlossNeuralNetwork", "GlossNeuralKernelChoice", "GlossNeuralReading", "CPPOCRModels", "CEmbeddedFiles"],
            path: "models", exclude: ["yunet/LICENSE", "yunet/README.md", "yunet/convert.py", "yunet/yunet.bin", "ppocr"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossTextRecognition", dependencies: ["GlossGeometry", "GlossContract", "GlossImaging", "CTesseract", "CMalloc"],
            path: "Sources/TextRecognition", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossNeuralReading", dependencies: ["GlossGeometry", "GlossContract", "GlossImaging", "GlossNeuralNetwork"],
            path: "Sources/NeuralReading", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossPreparation", dependencies: ["GlossGeometry", "GlossImaging"],
            path: "Sources/Preparation", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossReading", dependencies: ["GlossGeometry", "GlossContract", "GlossImaging", "GlossTextRecognition", "GlossNeuralReading",
                                                 "GlossPreparation"],
            path: "Sources/Reading", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossFaceDetection",
            dependencies: ["GlossGeometry", "GlossContract", "GlossImaging", "GlossNeuralNetwork"],
            path: "Sources/FaceDetection", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossTemplates", dependencies: ["CEmbeddedFiles"], path: "templates",
            exclude: ["README.md", "page.html", "index.html", "gloss.css", "page.js", "index.js"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossReports",
            dependencies: ["GlossGeometry", "GlossContract", "GlossTemplates", "CZlib", "CEmbeddedFiles"],
            // The sRGB profile of PDF/A's OutputIntent, from Debian's icc-profiles-free (Profiles/README.md),
            // is compiled in by CEmbeddedFiles.
            path: "Sources/Reports", exclude: ["README.md", "Profiles"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossPDFGraft", dependencies: ["CQPDF", "CQPDFContent"],
            path: "Sources/PDFGraft", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossIndex", dependencies: ["GlossGeometry", "GlossContract", "CSQLite"],
            path: "Sources/Index", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossPipeline",
            dependencies: [
                "GlossGeometry", "GlossContract", "GlossImaging", "GlossTextRecognition", "GlossPreparation", "GlossFaceDetection",
                "GlossModels", "GlossReports", "GlossIndex", "GlossNeuralNetwork", "GlossNeuralReading", "GlossReading", "GlossPDFGraft",
            ],
            path: "Sources/Pipeline", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(name: "GlossHTTP", dependencies: ["CMicroHTTPD"], path: "Sources/HTTP", exclude: ["README.md"], swiftSettings: swiftSettings),
        .target(
            name: "GlossServe", dependencies: ["GlossHTTP", "GlossPipeline", "GlossIndex", "GlossReports", "GlossContract", "GlossGeometry"],
            path: "Sources/Serve", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .target(
            name: "GlossCommandLine", dependencies: ["GlossServe", "GlossHTTP", "GlossPipeline", "GlossContract", "GlossReports", "GlossIndex", "GlossNeuralReading", "GlossReading"],
            path: "Sources/CommandLine", exclude: ["README.md"], swiftSettings: swiftSettings
        ),
        .executableTarget(name: "gloss", dependencies: ["GlossCommandLine"], path: "Sources/gloss", swiftSettings: swiftSettings),
        .executableTarget(name: "gloss-render", dependencies: ["GlossImaging"], path: "Sources/gloss-render", swiftSettings: swiftSettings),

        // Benchmark drivers (`make bench-faces`): not part of the products.
        .executableTarget(
            name: "FaceBench", dependencies: ["GlossFaceDetection", "GlossContract", "GlossImaging", "GlossGeometry"],
            path: "bench/faces/FaceBench", swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "YuNetBench", dependencies: ["GlossFaceDetection", "GlossModels", "GlossImaging", "GlossGeometry"],
            path: "bench/faces/YuNetBench", swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "NeuralBench", dependencies: ["GlossNeuralNetwork", "GlossNeuralKernelChoice", "CPPOCRModels"],
            path: "bench/neural/NeuralBench", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ImageBench", dependencies: ["GlossImaging"],
            path: "bench/images/ImageBench", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CascadeBench", dependencies: ["GlossModels", "GlossNeuralReading", "GlossNeuralNetwork", "GlossNeuralKernelChoice",
                                                 "GlossImaging", "GlossContract"],
            path: "bench/neural/CascadeBench", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "RecogniserBench", dependencies: ["GlossNeuralNetwork", "GlossNeuralKernelChoice", "CPPOCRModels"],
            path: "bench/neural/RecogniserBench", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "LetterBench", dependencies: ["GlossPreparation", "GlossImaging", "GlossGeometry"],
            path: "bench/reading/LetterBench", swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "IndexBench", dependencies: ["GlossIndex", "GlossContract", "GlossGeometry"],
            path: "bench/index/IndexBench", swiftSettings: swiftSettings
        ),

        // Leak check of Gloss's C ownership under the address sanitizer (`make test-sanitize`).
        .executableTarget(
            name: "LeakCheck",
            dependencies: [
                "GlossPipeline", "GlossContract", "GlossIndex", "GlossReports", "GlossImaging", "GlossTextRecognition",
                "GlossFaceDetection",
            ],
            path: "sanitize/LeakCheck", swiftSettings: swiftSettings
        ),

        // Tests mirror the modules; Support holds the fixture loaders they share.
        .target(
            name: "GlossTestSupport", path: "Tests/Support", exclude: ["http_test_server.py"], swiftSettings: swiftSettings
        ),
        .testTarget(name: "ArchitectureTests", swiftSettings: testSettings),
        .testTarget(name: "GeometryTests", dependencies: ["GlossGeometry"], swiftSettings: testSettings),
        .testTarget(name: "PDFGraftTests", dependencies: ["GlossPDFGraft", "GlossTestSupport"], swiftSettings: testSettings),
        .testTarget(
            name: "NeuralNetworkTests",
            dependencies: ["GlossNeuralNetwork", "GlossNeuralKernelChoice", "CNeuralKernels", "CPPOCRModels"], exclude: ["Golden"],
            swiftSettings: swiftSettings  // optimised: see testSettings
        ),
        .testTarget(
            name: "NeuralReadingTests",
            dependencies: ["GlossNeuralReading", "GlossNeuralNetwork", "GlossNeuralKernelChoice", "GlossModels", "GlossContract",
                           "GlossGeometry", "GlossImaging", "GlossPreparation", "GlossTestSupport", "CZlib"],
            exclude: ["Golden"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "ReadingTests",
            dependencies: ["GlossReading", "GlossContract", "GlossGeometry", "GlossImaging", "GlossNeuralReading", "GlossModels",
                           "GlossTextRecognition", "GlossTestSupport"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "PreparationTests", dependencies: ["GlossPreparation", "GlossImaging", "GlossGeometry", "GlossTestSupport"], swiftSettings: testSettings
        ),
        .testTarget(name: "ImagingTests", dependencies: ["GlossImaging", "CImagingKernels", "CLeptonica", "GlossTestSupport"], swiftSettings: testSettings),
        .testTarget(
            name: "TextRecognitionTests", dependencies: ["GlossContract", "GlossTextRecognition", "GlossImaging", "GlossTestSupport"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "FaceDetectionTests",
            dependencies: ["GlossContract", "GlossFaceDetection", "GlossImaging", "GlossNeuralNetwork", "GlossGeometry", "GlossModels"],
            exclude: ["Golden"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["GlossContract", "GlossReports", "GlossTextRecognition", "GlossImaging", "GlossGeometry", "GlossTestSupport"],
            exclude: ["Golden"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "IndexTests", dependencies: ["GlossContract", "GlossIndex", "GlossReports", "GlossGeometry"], swiftSettings: testSettings
        ),
        .testTarget(
            name: "ServeTests",
            dependencies: ["GlossServe", "GlossHTTP", "GlossIndex", "GlossContract", "GlossGeometry", "GlossPipeline"],
            swiftSettings: testSettings
        ),
        .testTarget(
            name: "PipelineTests",
            dependencies: ["GlossContract", "GlossPipeline", "GlossCommandLine", "GlossTextRecognition", "GlossImaging", "GlossReports", "GlossIndex", "GlossGeometry", "GlossTestSupport", "GlossPDFGraft", "GlossReading", "GlossNeuralReading",
                           "GlossServe", "GlossHTTP"],
            swiftSettings: testSettings
        ),
    ]
)
