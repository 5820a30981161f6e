// Benchmark driver for Gloss's neural network engine: runs the PP-OCRv6 detector on a random
// input of a given size and prints one line a run with its seconds, then their median and the
// peak resident memory (VmHWM). `engine.py` runs it beside onnxruntime.
//
//   NeuralBench WIDTH HEIGHT [REPEATS] [--profile]
//
// `--profile` prints, after the runs, each step's share of the runs' time (the CPU time of
// the thread, summed over the runs after the first), largest first.
import CPPOCRModels
import GlossNeuralKernelChoice
import GlossNeuralNetwork
#if canImport(Glibc)
import Glibc
#endif

func seconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// `value` rounded to thousandths, as text.
func thousandths(_ value: Double) -> String { "\((value * 1000).rounded() / 1000)" }

/// The process's peak resident set, in megabytes, from `/proc/self/status`.
func peakResidentMegabytes() -> Double {
    guard let file = fopen("/proc/self/status", "r") else { return .nan }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmHWM:") {
            let kilobytes = text.split(separator: " ").compactMap { Double($0) }.first ?? .nan
            return kilobytes / 1024
        }
    }
    return .nan
}

let profiling = CommandLine.arguments.contains("--profile")
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
guard arguments.count >= 2, arguments[0] % 32 == 0, arguments[1] % 32 == 0 else {
    print("usage: NeuralBench WIDTH HEIGHT [REPEATS] (multiples of 32)")
    exit(2)
}
let width = arguments[0], height = arguments[1], repeats = arguments.count > 2 ? max(1, arguments[2]) : 3

var count = 0
guard let start = gloss_ppocr_detector(&count) else { fatalError("no detector in the binary") }
let model = try ModelFile(bytes: UnsafeRawBufferPointer(start: start, count: count), path: "ppocr-det.bin")
// As the reader builds it: reduced only where the detector is (`KernelChoice.reducedDetector`).
var network = try Network(model: model, path: "ppocr-det.bin", products: KernelChoice.current.reducedDetector ? KernelChoice.current.kernels.products : .fp32)

// The input: uniform in -1...1 from a 64-bit linear congruential generator, seeded 1 (what a
// page's samples become after `(v / 255 - 0.5) / 0.5`), written straight into the network's
// input map as a reader does (`Network.run(height:width:filling:)`); the time is the run's after it.
func fill(_ map: inout FeatureMap) {
    var state: UInt64 = 1
    map.storage.withUnsafeMutableBufferPointer { values in
        for index in 0..<(3 * height * width) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values[index] = Float(state >> 40) / Float(1 << 24) * 2 - 1
        }
    }
}

/// The thread's CPU time, in seconds.
func threadSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

var times: [Double] = []
var cpuTimes: [Double] = []
var stepTimes = [Double](repeating: 0, count: network.stepCount)
var checksum: Float = 0
for run in 0..<repeats {
    var began = 0.0, cpuBegan = 0.0
    var last = 0.0
    let map = try network.run(height: height, width: width, filling: { fill(&$0); began = seconds(); cpuBegan = threadSeconds(); last = cpuBegan },
                              afterStep: profiling && (run > 0 || repeats == 1) ? { index in
                                  let now = threadSeconds()
                                  stepTimes[index] += now - last
                                  last = now
                              } : nil)
    let elapsed = seconds() - began, cpu = threadSeconds() - cpuBegan
    times.append(elapsed)
    cpuTimes.append(cpu)
    checksum = map.values.reduce(0, +)
    print("run \(run + 1): \(thousandths(elapsed)) s, CPU \(thousandths(cpu)) s")
}
let median = times.sorted()[times.count / 2], medianCPU = cpuTimes.sorted()[cpuTimes.count / 2]
print("detector \(width)x\(height), \(KernelChoice.current.kernels.rawValue) kernels\(KernelChoice.current.reducedDetector ? " (reduced detector)" : ""): "
    + "median \(thousandths(median)) s, CPU \(thousandths(medianCPU)) s of \(repeats), "
    + "peak RSS \(Int(peakResidentMegabytes())) MB, map sum \(checksum)")

if profiling {
    let total = stepTimes.reduce(0, +)
    print("steps by CPU time (\(thousandths(total)) s over \(max(1, repeats - 1)) runs):")
    for index in stepTimes.indices.sorted(by: { stepTimes[$0] > stepTimes[$1] }) {
        let share = (stepTimes[index] / total * 1000).rounded() / 10
        print("  \(share)%  \(thousandths(stepTimes[index] / Double(max(1, repeats - 1)))) s  \(network.describe(step: index))")
    }
}
