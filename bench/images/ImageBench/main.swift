import Foundation
import GlossImaging

// The report's pictures before and after display copies by kind: for every image named, its
// first page is decoded and reduced to the display size as `gloss annotate` does, then written
// the old way (an 8-bit PNG in libpng's fast mode) and the new way (a 16-shade PNG for a
// document or a JPEG for a photo, plus the index's thumbnail). Prints bytes and encoding time.
//
//   ImageBench [--display N] IMAGE...

var arguments = Array(CommandLine.arguments.dropFirst())
var displaySide = 2000
if let at = arguments.firstIndex(of: "--display"), at + 1 < arguments.count, let side = Int(arguments[at + 1]) {
    displaySide = side
    arguments.removeSubrange(at...at + 1)
}
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: ImageBench [--display N] IMAGE...\n".utf8))
    exit(2)
}

struct Totals {
    var pages = 0, before = 0, after = 0, thumbnails = 0
    var beforeTime = Duration.zero, afterTime = Duration.zero, reduceTime = Duration.zero
}
var byKind: [DisplayPicture.Kind: Totals] = [:]
let clock = ContinuousClock()
for path in arguments {
    guard let page = try? ImageFile(contentsOf: path).decodePage().raster else {
        print("skipped (not readable): \(path)")
        continue
    }
    var raster = page
    let reduceTime = clock.measure { raster = page.downsampled(toFit: displaySide) }
    var old: [UInt8] = [], picture: DisplayPicture?, thumbnail: DisplayPicture?
    let beforeTime = try clock.measure { old = try raster.pngData(fast: true) }
    let afterTime = try clock.measure {
        picture = try DisplayPicture(showing: raster)
        thumbnail = try DisplayPicture(thumbnailOf: raster)
    }
    guard let picture, let thumbnail else { continue }
    var totals = byKind[picture.kind] ?? Totals()
    totals.pages += 1
    totals.before += old.count
    totals.after += picture.bytes.count
    totals.thumbnails += thumbnail.bytes.count
    totals.beforeTime += beforeTime
    totals.afterTime += afterTime
    totals.reduceTime += reduceTime
    byKind[picture.kind] = totals
}

func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1e6) }
func milliseconds(_ time: Duration, _ pages: Int) -> String {
    String(format: "%.1f ms", Double(time.components.seconds) * 1e3 / Double(max(pages, 1))
        + Double(time.components.attoseconds) / 1e15 / Double(max(pages, 1)))
}
var all = Totals()
print("display copies at \(displaySide) px: 8-bit PNG (fast) before, by kind after (+ 320 px thumbnails)")
for kind in [DisplayPicture.Kind.document, .photo] {
    guard let t = byKind[kind] else { continue }
    let share = Double(t.after + t.thumbnails) / Double(t.before) * 100
    print(String(format: "%-9@ %4d pages  before %@  after %@ + %@ thumbnails = %.1f%%  encode %@ -> %@ a page",
                 kind.rawValue as NSString, t.pages, megabytes(t.before), megabytes(t.after), megabytes(t.thumbnails), share,
                 milliseconds(t.beforeTime, t.pages), milliseconds(t.afterTime, t.pages)))
    all.pages += t.pages; all.before += t.before; all.after += t.after; all.thumbnails += t.thumbnails
    all.beforeTime += t.beforeTime; all.afterTime += t.afterTime; all.reduceTime += t.reduceTime
}
print(String(format: "all       %4d pages  before %@  after %@ = %.1f%% of the bytes (target <= 25%%)  encode %@ -> %@ a page",
             all.pages, megabytes(all.before), megabytes(all.after + all.thumbnails),
             Double(all.after + all.thumbnails) / Double(max(all.before, 1)) * 100,
             milliseconds(all.beforeTime, all.pages), milliseconds(all.afterTime, all.pages)))
print("reducing each page to the display size: \(milliseconds(all.reduceTime, all.pages)) a page")
