// Leak check of Gloss's own C ownership, for `sanitize/run.sh` (built with --sanitize=address
// and run with ASAN_OPTIONS=detect_leaks=1): Leptonica PIX, libpng image structs, Tesseract
// engines, iterators and monitors, SQLite connections and statements.
//
// The test suite runs with LeakSanitizer off, because the test runtimes keep memory they never
// free. This driver runs the same code without them, on success and on failure paths, then
// returns from main with every Gloss object out of scope: whatever LeakSanitizer still finds
// unreachable at exit was dropped without being freed.
//
//   LeakCheck [FIXTURES]      (default: the repository's fixtures/)
import Foundation
import GlossFaceDetection
import GlossImaging
import GlossIndex
import GlossPipeline
import GlossContract
import GlossReports
import GlossTextRecognition

let fixtures = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1]
    : URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures").path

func say(_ line: String) { FileHandle.standardError.write(Data(("leak-check: " + line + "\n").utf8)) }

func scratchFolder(_ name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-leak-\(getpid())-\(name)").path
    try? FileManager.default.removeItem(atPath: path)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func imageFiles(under folder: String) -> [String] {
    let names = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []
    return names.filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".md") && !$0.hasSuffix(".py") }
        .map { folder + "/" + $0 }
        .filter { var isFolder: ObjCBool = false; return FileManager.default.fileExists(atPath: $0, isDirectory: &isFolder) && !isFolder.boolValue }
        .sorted()
}

/// Every fixture, every page: Leptonica (JPEG, TIFF, PNM, WebP, GIF, BMP) and libpng; then the
/// same bytes cut short and corrupted, so every decoder's failure path runs too; then PNG output.
func decodeEverything() throws {
    var decoded = 0, refused = 0
    for path in imageFiles(under: fixtures) {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        var variants: [(String, [UInt8])] = [(path, bytes)]
        if bytes.count > 64 {
            variants.append((path + " (first half)", Array(bytes.prefix(bytes.count / 2))))
            var scrambled = bytes
            for i in stride(from: 48, to: scrambled.count, by: 97) { scrambled[i] ^= 0x5A }
            variants.append((path + " (scrambled)", scrambled))
        }
        for (name, data) in variants {
            do {
                let file = try ImageFile(bytes: data, path: name)
                for page in 0..<file.pageCount {
                    do {
                        let raster = try file.decodePage(page).raster
                        _ = try raster.downsampled(toFit: 256).pngData(fast: page % 2 == 0)
                        decoded += 1
                    } catch { refused += 1 }
                }
            } catch { refused += 1 }
        }
    }
    do { _ = try ImageFile(contentsOf: fixtures + "/no-such-file.png") } catch { refused += 1 }
    do { _ = try ImageFile(contentsOf: fixtures + "/text/sans.png", pixelLimit: 10) } catch { refused += 1 }
    say("decoded \(decoded) pages, refused \(refused) inputs")
}

/// One engine for several pages, a cancelled recognition, and engines that fail to load.
func recognize() throws {
    let recognizer = try TextRecognizer()
    for name in ["text/sans.png", "text/two-pages.tif", "text/rotated.jpg"] {
        let page = try ImageFile(contentsOf: fixtures + "/" + name).decodePage()
        let text = try recognizer.recognize(page.raster, resolution: page.resolution)
        say("\(name): \(text.words.count) words")
    }
    let flag = CancellationFlag()
    flag.raise()
    let page = try ImageFile(contentsOf: fixtures + "/scans/page.png").decodePage()
    do { _ = try recognizer.recognize(page.raster, resolution: nil, cancellation: flag) } catch { say("cancelled: \(error)") }

    // A language with no model: refused before an engine exists.
    do { _ = try TextRecognizer(options: RecognitionOptions(languages: ["xx-none"])) } catch { say("refused: missing model") }
    // A model file that is not one: the engine is created, fails to initialise, and must be freed.
    let folder = try scratchFolder("tessdata")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    _ = FileManager.default.createFile(atPath: folder + "/bad.traineddata", contents: Data("not a model".utf8))
    do { _ = try TextRecognizer(options: RecognitionOptions(languages: ["bad"], dataPath: folder)) } catch { say("refused: bad model") }
}

func detectFaces() throws {
    let detector = try FaceDetector.standard()
    let page = try ImageFile(contentsOf: fixtures + "/faces/astronaut.png").decodePage()
    say("faces: \(try detector.detect(in: page.raster).count)")
}

/// A whole batch through the pipeline (lanes, engines, the recorder's database), again to take
/// the resume path, then search, merge, and the index's failure paths.
func batch() async throws {
    let root = try scratchFolder("batch")
    defer { try? FileManager.default.removeItem(atPath: root) }
    let inputs = ["text", "scans", "faces", "formats", "bad"].map { fixtures + "/" + $0 }
    let annotator = Annotator(settings: AnnotationSettings(formats: Set(OutputFormat.allCases)), jobs: 2)
    let first = try await annotator.annotate(inputs, into: root + "/all")
    let again = try await annotator.annotate(inputs, into: root + "/all")
    say("batch: \(first.pages.count) pages, \(again.pages.count) on resume")

    let shards = try await (0..<2).asyncMap { k in
        let folder = root + "/shard-\(k)"
        var sharded = Annotator(settings: AnnotationSettings(detectFaces: false), jobs: 1, shard: try Shard(index: k, count: 2))
        sharded.pageTimeout = .seconds(60)
        _ = try await sharded.annotate([fixtures + "/text"], into: folder)
        return folder
    }
    _ = try await BatchMerge.merge(shards, into: root + "/merged")

    let index = try BatchIndex(folder: root + "/all", create: false)
    for query in ["the", "\"quick brown\" OR harbour", "engin* NOT march", "((("] {
        do { say("search \(query): \(try index.search(query).count)") } catch { say("search \(query): \(error)") }
    }
    _ = try index.pages(withAtLeastFaces: 1)
    _ = try index.searchablePages()
    do { _ = try BatchIndex(folder: root + "/nowhere", create: false) } catch { say("refused: no index") }
    do { _ = try BatchIndex(folder: root + "/all/gloss.sqlite", create: true) } catch { say("refused: not a folder") }

    let single = try await Annotator(jobs: 1).read(file: fixtures + "/faces/astronaut.png")
    say("read: \(single.words.count) words, \(single.faces.count) faces")
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

// Each step in a function of its own, so nothing it made is still referenced from a global or
// this frame when LeakSanitizer looks at exit.
try decodeEverything()
try recognize()
try detectFaces()
try await batch()
say("done")
