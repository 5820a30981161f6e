import Foundation
import GlossContract
@testable import GlossPipeline
import GlossReading
import GlossReports
import Testing

/// The settings as batches record them: the same bytes and the same fingerprint as the Gloss
/// that wrote the batches already on disk, so that they still resume.
@Suite struct SettingsTests {
    /// Every setting away from its default, as `--format html,json,hocr,alto,tsv,txt,pdf,iiif
    /// --skip-text --pdf-resolution 200 --pdf-standard none --prepare none --face-size 500` sets them.
    static var changed: AnnotationSettings {
        // The formats named, not all there are: a format added later is not in those batches.
        var settings = AnnotationSettings(formats: [.html, .json, .hocr, .alto, .tsv, .txt, .pdf])
        settings.iiif = IIIFOutput()
        settings.pdfMode = .skip
        settings.pdfResolution = 200
        settings.pdfStandard = .none
        settings.prepare = .none
        settings.faceDimension = 500
        settings.textMode = .fast
        return settings
    }

    /// Pinned from the `settingsHash` of batches written by Gloss before the settings were one
    /// declaration each (commit 0cbab2c), which looked at every face for a smile: with
    /// `--smiles` a batch fingerprints as those did and resumes them.
    @Test func theFingerprintIsTheOneBatchesOnDiskHold() {
        func smiling(_ settings: AnnotationSettings) -> AnnotationSettings {
            var settings = settings
            settings.detectSmiles = true
            return settings
        }
        // Those batches were read with Tesseract alone (`fast`, recorded by leaving it out). A
        // prepared batch names its `PreparationPolicy` since version 2 (no second reading of a
        // scaled page as it came), and is read again: before, "0914b6ef2d06b805" and "0170ea19553b1ede";
        // at version 2, "3a51aed63d6f47f4" and "e37d2d1ed8cf6d5d" (3: the orientation detector
        // asked after the first reading in `fast`, no comparison for a way up not doubted:
        // "225405c6a030d908" and "37ec0ce0945b0016"; 4: letters measured in rows of three,
        // "4ba7e64a0889d6ca" and "a9f54b4f039f56be"; 5: a first reading settles the way up from 70,
        // "62beb59894718831" and "ab69d4aa14d174b0"; 6: rows of letters settle the way up,
        // "7a22737eac2c4914" and "5ead17a65369e4ef"; 7: regions on paper read without inverted lines).
        #expect(smiling(AnnotationSettings.readingFast()).fingerprint == "eeb9cfd0ee64cdbb")
        #expect(smiling(AnnotationSettings.readingFast(detectFaces: false)).fingerprint == "a0e965c12232d7ca")
        // Since `--pdf-mode` replaced `skipText` (recorded as "pdfMode":"skip"); before, "da0faf7adab072d6".
        #expect(smiling(Self.changed).fingerprint == "a54ea7c0d6529289")
        // Without smiles (the default since) a page's faces differ, and it is read again.
        #expect(AnnotationSettings.readingFast().fingerprint != "eeb9cfd0ee64cdbb")
        // The plan's reading, the default since, names its policies.
        #expect(AnnotationSettings().fingerprint != AnnotationSettings.readingFast().fingerprint)
    }

    /// The triage decides each page's review flags: another `TriagePolicy` version reads the
    /// batch's pages again, in both modes; version 1 fingerprints as batches on disk do.
    @Test func theTriagePolicyVersionChangesTheFingerprint() {
        var next = TriagePolicy()
        next.version += 1
        for settings in [AnnotationSettings(), AnnotationSettings.readingFast()] {
            #expect(settings.fingerprint(triage: TriagePolicy()) == settings.fingerprint)
            #expect(settings.fingerprint(triage: next) != settings.fingerprint)
        }
    }

    /// PDF/A, the default, changes the fingerprint of a batch that writes PDFs, whose PDFs it
    /// changes, and of no other.
    @Test func pdfAChangesOnlyTheFingerprintOfBatchesWritingPDFs() {
        var archived = Self.changed
        archived.pdfStandard = .pdfA2b
        #expect(archived.fingerprint != Self.changed.fingerprint)
        var withoutPDF = AnnotationSettings()
        withoutPDF.pdfStandard = .none
        #expect(withoutPDF.fingerprint == AnnotationSettings().fingerprint)
    }

    @Test func theSettingsAreWrittenAsBefore() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(AnnotationSettings()), as: UTF8.self) == """
            {"detectFaces":true,"detectSmiles":false,"displayDimension":2000,"faceDetector":"cnn","faceDimension":null,\
            "faceModelPath":null,"formats":["html","json"],"pdfStandard":"pdfa-2b","pixelLimit":150000000,\
            "prepare":["orientation","deskew","flatten","scale","reread"],\
            "recognition":{"languages":["eng"],"pageSegmentationMode":3},"recognizeText":true,"textMode":"accurate"}
            """)
        #expect(String(decoding: try encoder.encode(Self.changed), as: UTF8.self) == """
            {"detectFaces":true,"detectSmiles":false,"displayDimension":2000,"faceDetector":"cnn","faceDimension":500,\
            "faceModelPath":null,"formats":["alto","hocr","html","json","pdf","tsv","txt"],"iiif":{},"pdfMode":"skip","pdfResolution":200,\
            "pixelLimit":150000000,"recognition":{"languages":["eng"],"pageSegmentationMode":3},"recognizeText":true}
            """)
        for settings in [AnnotationSettings(), Self.changed] {
            #expect(try JSONDecoder().decode(AnnotationSettings.self, from: encoder.encode(settings)) == settings)
        }
    }

    @Test func anOlderRecordReadsAsItWasMeant() throws {
        let old = #"{"detectFaces":true,"displayDimension":2000,"formats":["json","html"],"pixelLimit":100,"#
            + #""recognition":{"languages":["eng"],"pageSegmentationMode":3},"recognizeText":true}"#
        let settings = try JSONDecoder().decode(AnnotationSettings.self, from: Data(old.utf8))
        #expect(settings.faceDetector == .cascade, "before the CNN, faces were found by the cascade")
        #expect(settings.prepare == .none, "before preparation, pages were read as they came")
        #expect(settings.pdfResolution == AnnotationSettings().pdfResolution && settings.pdfMode == .force && settings.iiif == nil)
        #expect(settings.pdfStandard == .none, "before PDF/A, searchable PDFs were plain")
        #expect(settings.formats == [.html, .json] && settings.pixelLimit == 100 && settings.faceDimension == nil)
        #expect(settings.detectSmiles, "before the setting, every face was looked at for a smile")
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(AnnotationSettings.self, from: Data(#"{"detectFaces":true}"#.utf8))
        }
    }

    @Test func eachSettingIsDeclaredOnce() {
        let keys = AnnotationSettings.fields.map(\.key.stringValue)
        #expect(Set(keys).count == keys.count)
        // Every stored property has its field (a new one without a line there is found here).
        let properties = Mirror(reflecting: AnnotationSettings()).children.compactMap(\.label)
        #expect(Set(properties) == Set(keys))
    }
}
