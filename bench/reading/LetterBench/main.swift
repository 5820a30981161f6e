import Foundation
import GlossGeometry
import GlossImaging
import GlossPreparation

// The letter size Gloss measures on each page named, without reading it: the text analyzer's
// measure (the page in grey, flattened when `PixelRecipe` chooses to, as `--text fast` reads
// it as it came), the preparer's (the grey copy reduced to about 150 ppi, in page pixels),
// and the page in grey's (the reading plan's `PageSignals`, which sizes the neural detector's
// input), with the scale `TextScale` then decides and the measure's time, and Leptonica's
// signal of the text's direction (`InkPage.textDirection`). One line a page:
//   NAME <TAB> XHEIGHT <TAB> LETTERS <TAB> FACTOR <TAB> PREPARER-XHEIGHT <TAB> GREY-XHEIGHT <TAB> MS <TAB> UP <TAB> SIDEWAYS <TAB> TURN
//
//   LetterBench IMAGE...

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: LetterBench IMAGE...\n".utf8))
    exit(2)
}
let clock = ContinuousClock()
for path in arguments {
    guard let decoded = try? ImageFile(contentsOf: path).decodePage() else {
        print("\((path as NSString).lastPathComponent)\tunreadable")
        continue
    }
    let grey = decoded.raster.grayscale()
    let recipe = PixelRecipe.chosen(for: grey).recipe
    let flattened = recipe.isIdentity ? grey : recipe.rendered(grey)
    if let folder = ProcessInfo.processInfo.environment["LETTER_DUMP"] {
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        _ = FileManager.default.createFile(atPath: folder + "/" + name + ".flat.png", contents: Data(try flattened.pngData(fast: true)))
    }
    var letters: LetterSize?
    let time = clock.measure { letters = LetterSize(of: flattened) }
    let scale = TextScale(letters: letters, statedResolution: decoded.resolution, size: grey.size)
    let shortSide = min(grey.width, grey.height)
    let reduction = shortSide >= 3600 ? 4 : shortSide >= 1800 ? 2 : 1
    let working = reduction == 1 ? grey
        : grey.resampled(width: max(1, grey.width / reduction), height: max(1, grey.height / reduction), grey: true)
    let unflattened = LetterSize(of: grey).map { String($0.xHeight) } ?? "-"
    let preparer = LetterSize(of: working).map { String($0.xHeight * reduction) } ?? "-"
    // Leptonica's reading of the text's direction on the working copy, as the preparer takes it
    // (`PagePreparer.certainlyUpright`; a page of small letters is read enlarged there, not here).
    let direction = InkPage(grey: working)?.textDirection(certainlyUpright: 22)
    let signal = direction.map { String(format: "%.2f\t%.2f\t%d", $0.upConfidence, $0.sidewaysConfidence, $0.suggestedRotation) } ?? "-\t-\t-"
    let ms = Double(time.components.attoseconds) / 1e15 + Double(time.components.seconds) * 1e3
    print("\((path as NSString).lastPathComponent)\t\(letters.map { String($0.xHeight) } ?? "-")\t\(letters?.letters ?? 0)\t"
          + "\(String(format: "%.3f", scale.factor))\t\(preparer)\t\(unflattened)\t\(String(format: "%.0f", ms))\t\(signal)")
}
