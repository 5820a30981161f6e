import CPPOCRModels
import Foundation
import GlossNeuralKernelChoice
import GlossNeuralNetwork

// Times the PP-OCRv6 recogniser's program on lines of text-sized input, one thread:
// `RecogniserBench WIDTH LINES RUNS` runs one line of WIDTH (a multiple of 8) RUNS times,
// then LINES lines of that width one after another, RUNS times, and prints the median
// milliseconds of each, wall and the thread's CPU time, and the kernels that ran (`KernelChoice`;
// GLOSS_NEURAL_KERNELS=avx2 runs the AVX2 ones on an AVX-512 processor). The input is the pattern models/ppocr/bench_rec.py gives onnxruntime.

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
guard arguments.count == 3, arguments[0] > 0, arguments[0] % 8 == 0, arguments[1] > 0, arguments[2] > 0 else {
    FileHandle.standardError.write(Data("usage: RecogniserBench WIDTH LINES RUNS (WIDTH a multiple of 8)\n".utf8))
    exit(2)
}
let (width, lines, runs) = (arguments[0], arguments[1], arguments[2])

var count = 0
guard let start = gloss_ppocr_recogniser(&count) else { exit(1) }
let model = try ModelFile(bytes: UnsafeRawBufferPointer(start: start, count: count), path: "ppocr-rec.bin")
var network = try Network(model: model, path: "ppocr-rec.bin")

/// Line `index`'s input: `((c * 7 + y * 13 + x * 31 + index * 5) % 255) / 127.5 - 1`.
func input(_ index: Int) -> FeatureMap {
    var map = FeatureMap(channels: 3, height: 48, width: width)
    for c in 0..<3 {
        for y in 0..<48 {
            for x in 0..<width { map[c, y, x] = Float((c * 7 + y * 13 + x * 31 + index * 5) % 255) / 127.5 - 1 }
        }
    }
    return map
}

let inputs = (0..<lines).map(input)
/// The thread's CPU time in milliseconds: on a shared machine the wall time counts the other
/// processes' turns too, this only the bench's own work.
func cpuMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}
/// The wall and CPU milliseconds of `body`.
func milliseconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let begin = DispatchTime.now().uptimeNanoseconds, cpuBegin = cpuMilliseconds()
    try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6, cpuMilliseconds() - cpuBegin)
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var checksum: Float = 0
_ = try network.run(inputs[0])
let one = try (0..<runs).map { _ in try milliseconds { checksum += try network.run(inputs[0]).values.first ?? 0 } }
let batch = try (0..<runs).map { _ in
    try milliseconds { for line in inputs { checksum += try network.run(line).values.first ?? 0 } }
}
let lineCount = Double(lines)
print("swift (\(KernelChoice.current.kernels.rawValue) kernels): "
      + String(format: "one line 48x%d %.1f ms; %d lines %.1f ms (%.1f ms a line); CPU time %.1f ms one line, "
             + "%.1f ms a line  [checksum %.4f]", width, median(one.map(\.wall)), lines, median(batch.map(\.wall)),
             median(batch.map(\.wall)) / lineCount, median(one.map(\.cpu)), median(batch.map(\.cpu)) / lineCount, checksum))
