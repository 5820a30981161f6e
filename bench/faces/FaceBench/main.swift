// Benchmark driver for GlossFaceDetection: runs one cascade over grey PGM images and prints one
// JSON object per image with the boxes and the wall time of each repetition.
//
//   FaceBench --cascade PATH [--scale 1.1] [--neighbors 3] [--min 30] [--max 0]
//             [--threads 1] [--repeat 5] [--faces] IMAGE.pgm...
//
// --faces runs the full FaceDetector (landmarks, smile) with the given cascade instead.
// Later `gloss faces` takes this role; this stays as the harness for bench/faces/compare.py.
import GlossContract
import GlossFaceDetection
import GlossGeometry
import GlossImaging
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileDescriptorOutput.standardError.write("FaceBench: \(message)\n")
    exit(2)
}

func readPGM(_ path: String) -> Raster {
    guard let f = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        bytes += chunk[0..<n]
        if n < chunk.count { break }
    }
    var i = 0
    func token() -> String {
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count && bytes[i] != 0x0A { i += 1 }
            } else if bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            } else { break }
        }
        let s = i
        while i < bytes.count && !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) { i += 1 }
        return String(decoding: bytes[s..<i], as: UTF8.self)
    }
    guard token() == "P5", let w = Int(token()), let h = Int(token()), Int(token()) == 255 else {
        fail("\(path) is not an 8-bit binary PGM")
    }
    i += 1
    guard bytes.count - i >= w * h else { fail("\(path) is truncated") }
    return Raster(width: w, height: h, layout: .gray, pixels: Array(bytes[i..<(i + w * h)]))
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

var cascadePath = Cascade.Known.frontalFaceDefault.path
var parameters = DetectionParameters(scaleFactor: 1.1, minNeighbors: 3, minSize: PixelSize(width: 30, height: 30))
var repeats = 5
var faces = false
var images: [String] = []
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    func value() -> String {
        guard let v = args.next() else { fail("\(a) needs a value") }
        return v
    }
    switch a {
    case "--cascade": cascadePath = value()
    case "--scale": parameters.scaleFactor = Double(value()) ?? 1.1
    case "--neighbors": parameters.minNeighbors = Int(value()) ?? 3
    case "--min":
        let m = Int(value()) ?? 0
        parameters.minSize = m > 0 ? PixelSize(width: m, height: m) : nil
    case "--max":
        let m = Int(value()) ?? 0
        parameters.maxSize = m > 0 ? PixelSize(width: m, height: m) : nil
    case "--threads": parameters.threads = Int(value()) ?? 1
    case "--repeat": repeats = max(1, Int(value()) ?? 1)
    case "--faces": faces = true
    default: images.append(a)
    }
}

let cascade: Cascade
do {
    cascade = try Cascade(contentsOfFile: cascadePath)
} catch {
    fail("\(error)")
}

for path in images {
    let image = readPGM(path)
    var times: [Double] = []
    var boxes: [String] = []
    for r in 0..<repeats {
        let t0 = now()
        if faces {
            var options = FaceDetector.Options()
            options.scaleFactor = parameters.scaleFactor
            options.minNeighbors = parameters.minNeighbors
            options.minFaceSize = parameters.minSize?.width ?? 0
            options.threads = parameters.threads
            let detector = FaceDetector(faceCascade: cascade, eyeCascade: try Cascade.load(.eye),
                                        smileCascade: try Cascade.load(.smile), options: options)
            let found = try detector.detect(in: image)
            times.append(now() - t0)
            if r == 0 {
                for face in found {
                    let p = PixelRect(face.box, in: image.size)
                    func point(_ l: Face.Landmark?) -> String {
                        guard let l else { return "null" }
                        let q = PixelPoint(l.position, in: image.size)
                        return "[\(DecimalText.format(q.x, maximumFractionDigits: 1)),\(DecimalText.format(q.y, maximumFractionDigits: 1)),\"\(l.source)\"]"
                    }
                    boxes.append("[\(p.x),\(p.y),\(p.width),\(p.height),\(face.neighbors),\(point(face.leftEye)),\(point(face.rightEye)),\(point(face.mouth)),\(face.hasSmile)]")
                }
            }
        } else {
            let found = try cascade.detect(in: image, parameters: parameters)
            times.append(now() - t0)
            if r == 0 {
                boxes = found.map { "[\($0.rect.x),\($0.rect.y),\($0.rect.width),\($0.rect.height),\($0.neighbors)]" }
            }
        }
    }
    let ms = times.map { DecimalText.format($0, maximumFractionDigits: 3) }.joined(separator: ",")
    print("{\"image\":\"\(path)\",\"ms\":[\(ms)],\"boxes\":[\(boxes.joined(separator: ","))]}")
}

/// Writes to a file descriptor without touching C's global `stderr` (not concurrency-safe).
struct FileDescriptorOutput {
    static let standardError = FileDescriptorOutput(fd: 2)
    let fd: Int32
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}
