import Foundation
import GlossContract
import GlossImaging
import GlossModels
import GlossNeuralKernelChoice
import GlossNeuralNetwork
import GlossNeuralReading

// The signals of the recogniser's cascade, line by line: `CascadeBench NAME=IMAGE...` finds
// each page's lines as the neural reader does (the detector and the classifier in fp32), reads
// every line with the quick recogniser (bf16 on AMX, 16-bit integers on AVX2) and again in
// fp32, in RapidOCR's chunks as
// `NeuralReader.read(lines:in:cancellation:)` does, and prints one JSON object a line: the page,
// the line, each reading's text, confidence and gaps (`DecodedLine.smallestGap`,
// `smallestDecisiveGap`), its smallest character probability and the thread's CPU
// milliseconds. Needs the cascade's kernels chosen for the process (`GLOSS_NEURAL_KERNELS=cascade`,
// or the default where it is the cascade).
// `bench/neural/cascade.py` chooses `ReadingPolicy.recheckGap` from it.

guard KernelChoice.current.kernels.products != .fp32 else {
    FileHandle.standardError.write(Data("CascadeBench: the products run in fp32 here (no cascade, or GLOSS_NEURAL_KERNELS asks for fp32)\n".utf8))
    exit(2)
}
let networks = try PPOCRNetworks.bundled(choice: KernelChoice.current.cascading)
var quick = networks.recogniser
guard var exact = networks.recheck else { exit(3) }
let reader = NeuralReader(detector: networks.detector, recogniser: networks.recheck!, classifier: networks.classifier,
                          characters: networks.characters)
let decoder = reader.decoder

func cpuMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}

func reading(_ network: inout Network, _ input: FeatureMap) throws -> [String: Any] {
    let begin = cpuMilliseconds()
    let output = try network.run(input, isCancelled: { false })
    let line = decoder.decode(output.values, steps: output.height)
    return ["text": line.text, "confidence": line.confidence, "gap": line.smallestGap, "decisive": line.smallestDecisiveGap,
            "least": line.characters.map(\.probability).min() ?? 1, "ms": cpuMilliseconds() - begin]
}

var input = FeatureMap(channels: 3, height: RecognizerInput.height, width: RecognizerInput.classifierWidth)
for argument in CommandLine.arguments.dropFirst() {
    guard let equals = argument.firstIndex(of: "=") else { continue }
    let name = String(argument[..<equals]), path = String(argument[argument.index(after: equals)...])
    let raster = try ImageFile(contentsOf: path).decodePage().raster
    let found = try reader.detect(raster: raster, cancellation: CancellationFlag())
    let crops = found.map(\.crop)
    for chunk in RecognizerInput.chunks(of: crops.map { ($0.raster.width, $0.raster.height) }, widths: reader.policy.lineWidths) {
        for index in chunk.lines {
            let crop = crops[index]
            let resized = RecognizerInput.resizedWidth(of: (crop.raster.width, crop.raster.height), limit: chunk.width)
            RecognizerInput.fill(&input, with: crop.raster, resizedWidth: resized, width: chunk.paddedWidth)
            let record: [String: Any] = ["page": name, "line": index, "width": chunk.paddedWidth,
                                         "kernels": KernelChoice.current.kernels.rawValue,
                                         "quick": try reading(&quick, input), "fp32": try reading(&exact, input)]
            let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
