// Benchmark driver for Gloss's YuNet: reads images Gloss can decode (PNG, PPM...), runs the
// detector on each as it is (callers resize), and prints one JSON line per image with the wall
// time of every run and the faces of the first.
//
// The faces printed are those the shape policy admits (`detect(in:)`'s); `--raw` prints every
// detection, as upstream's C++ gives them.
//
// `--fit N` first reduces each image to N px on its longest side with Gloss's own resampler
// (`Raster.downsampled(toFit:)`, the copy the pipeline's face stage reads); the boxes are then in
// that copy's pixels, and its width and height are printed.
//
//   YuNetBench [--threshold 0.6] [--repeat 11] [--raw] [--fit N] IMAGE...
import GlossFaceDetection
import GlossModels
import GlossGeometry
import GlossImaging
#if canImport(Glibc)
import Glibc
#endif

func milliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

var options = YuNetDetector.Options()
var repeats = 11
var raw = false
var fit: Int?
var images: [String] = []
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--threshold": options.scoreThreshold = Double(arguments.next() ?? "") ?? options.scoreThreshold
    case "--repeat": repeats = max(1, Int(arguments.next() ?? "") ?? repeats)
    case "--raw": raw = true
    case "--fit": fit = Int(arguments.next() ?? "").flatMap { $0 > 0 ? $0 : nil }
    default: images.append(argument)
    }
}

let detector = try YuNetDetector.bundled(options: options)
for path in images {
    var image = try ImageFile(contentsOf: path).decodePage().raster
    if let fit { image = image.downsampled(toFit: fit) }
    var times: [Double] = []
    var faces: [YuNetDetector.Detection] = []
    _ = try detector.detections(in: image)  // untimed: the first run sizes the activations
    for _ in 0..<repeats {
        let start = milliseconds()
        faces = try detector.detections(in: image)
        if !raw { faces = detector.faces(among: faces, in: image.size) }
        times.append(milliseconds() - start)
    }
    func number(_ value: Float) -> String { DecimalText.format(Double(value), maximumFractionDigits: 3) }
    let listed = faces.map { face in
        "[" + ([face.x1, face.y1, face.x2, face.y2, face.score] + face.landmarks).map(number).joined(separator: ",") + "]"
    }
    let ms = times.map { DecimalText.format($0, maximumFractionDigits: 3) }.joined(separator: ",")
    print("{\"image\":\"\(path)\",\"width\":\(image.width),\"height\":\(image.height),\"ms\":[\(ms)],\"faces\":[\(listed.joined(separator: ","))]}")
}
