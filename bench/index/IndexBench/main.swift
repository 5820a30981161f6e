// Search latency on a large batch index (`make bench`): writes 10,000 synthetic pages of 300
// words each (generated rows, not OCR) through the same API the batch recorder uses, then times
// queries of every kind, as `gloss search` runs them, and the export the report's search reads.
//
//   IndexBench [--pages 10000] [--words 300] [--folder DIR] [--keep]
import Foundation
import GlossGeometry
import GlossIndex
import GlossContract

var pageCount = 10_000, wordsPerPage = 300, keep = false
var folder = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-index-bench-\(getpid())").path
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--pages": pageCount = Int(arguments.next() ?? "") ?? pageCount
    case "--words": wordsPerPage = Int(arguments.next() ?? "") ?? wordsPerPage
    case "--folder": folder = arguments.next() ?? folder
    case "--keep": keep = true
    default: fatalError("unknown argument \(argument)")
    }
}

/// A fixed pseudo-random sequence, so every run indexes the same pages.
struct Generator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

// A vocabulary of 20,000 made-up words; word frequencies fall off like a natural language's.
var random = Generator()
let letters = Array("abcdefghijklmnopqrstuvwxyz")
let vocabulary = (0..<20_000).map { rank -> String in
    let length = 3 + rank % 7
    return String((0..<length).map { _ in letters[random.next(letters.count)] })
}
@MainActor func word() -> String {
    // Cubing a uniform draw favours low ranks: a few words are everywhere, most are rare.
    let u = Double(random.next(1_000_000)) / 1_000_000
    return vocabulary[Int(u * u * u * Double(vocabulary.count - 1))]
}

try? FileManager.default.removeItem(atPath: folder)
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { if !keep { try? FileManager.default.removeItem(atPath: folder) } }
let index = try BatchIndex(folder: folder, create: true)

let clock = ContinuousClock()
let writing = clock.measure {
    for number in 0..<pageCount {
        var report = PageReport(source: "scans/box-\(number / 500)/page-\(number).tif", pageIndex: 0, status: .ok, error: "")
        report.error = nil
        report.width = 2480
        report.height = 3508
        for position in 0..<wordsPerPage {
            let line = position / 12
            report.words.append(PageReport.Word(
                text: word(), confidence: 90, box: PixelRect(x: 100 + (position % 12) * 180, y: 150 + line * 60, width: 150, height: 40),
                line: line))
        }
        try! index.record(IndexedPage(name: "page-\(number)", position: number, inputHash: nil, settingsHash: nil,
                                      outputs: ["html": "pages/page-\(number).html"], report: report))
    }
}
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
func format(_ value: Double) -> String { DecimalText.format(value, maximumFractionDigits: 1) }
let size = (try? FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int) ?? 0
print("\(pageCount) pages of \(wordsPerPage) words written in \(format(milliseconds(writing) / 1000)) s "
      + "(one transaction a page; \(format(Double(size) / 1_048_576)) MB before checkpoint)")

let common = vocabulary[0], frequent = vocabulary[40], rare = vocabulary[15_000]
let queries = [
    ("common word", common),
    ("rare word", rare),
    ("two words", "\(frequent) \(common)"),
    ("phrase", "\"\(common) \(frequent)\""),
    ("prefix", String(vocabulary[3].prefix(3)) + "*"),
    ("OR", "\(rare) OR \(vocabulary[12_000])"),
    ("NOT", "\(common) NOT \(frequent)"),
]
print("query                     pages found  median ms  worst ms  (20 runs, top 20 with snippets and boxes)")
var worstMedian = 0.0
for (name, query) in queries {
    var times: [Double] = []
    var found = 0
    for _ in 0..<20 {
        var results: [SearchResult] = []
        times.append(milliseconds(clock.measure { results = try! index.search(query, limit: 20) }))
        found = results.count
    }
    times.sort()
    let median = times[times.count / 2]
    worstMedian = max(worstMedian, median)
    print(name.padding(toLength: 26, withPad: " ", startingAt: 0) + String(found).padding(toLength: 13, withPad: " ", startingAt: 0)
          + format(median).padding(toLength: 11, withPad: " ", startingAt: 0) + format(times.last!))
}
print("slowest median: \(format(worstMedian)) ms (target < 50 ms)")
var exported = 0
let export = clock.measure { exported = (try? index.searchablePages().count) ?? 0 }
print("report search data for \(exported) pages exported in \(format(milliseconds(export))) ms")
