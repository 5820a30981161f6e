import Foundation
import GlossContract
import GlossFaceDetection
import GlossGeometry
import Testing

/// A one-stage Haar cascade whose single stump always adds `leaf`; the stage passes when
/// `leaf >= threshold`. Small enough to reason about window counts by hand.
func tinyCascadeXML(leaf: String = "1.", threshold: String = "-1.", featureIndex: String = "0") -> String {
    """
    <?xml version="1.0"?>
    <!-- a hand-made cascade for tests -->
    <opencv_storage>
    <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
      <featureType>HAAR</featureType>
      <height>24</height>
      <width>24</width>
      <stageParams><maxWeakCount>1</maxWeakCount></stageParams>
      <featureParams><maxCatCount>0</maxCatCount></featureParams>
      <stageNum>1</stageNum>
      <stages>
        <_>
          <maxWeakCount>1</maxWeakCount>
          <stageThreshold>\(threshold)</stageThreshold>
          <weakClassifiers>
            <_>
              <internalNodes>0 -1 \(featureIndex) 0.</internalNodes>
              <leafValues>\(leaf) \(leaf)</leafValues></_></weakClassifiers></_></stages>
      <features>
        <_>
          <rects>
            <_>0 0 24 12 -1.</_>
            <_>0 12 24 12 1.</_></rects></_></features></cascade>
    </opencv_storage>
    """
}

@Suite struct CascadeLoadingTests {
    @Test func everyDebianCascadeLoadsExceptTheOldFormatOne() throws {
        let files = Fixtures.listXML(Cascade.systemDirectory + "/haarcascades")
            + Fixtures.listXML(Cascade.systemDirectory + "/lbpcascades")
        #expect(files.count >= 20)
        for file in files {
            if file.hasSuffix("haarcascade_licence_plate_rus_16stages.xml") {
                let error = #expect(throws: CascadeError.self) { try Cascade(contentsOfFile: file) }
                #expect(error?.file == file)
                if case .unsupported = error?.reason {} else { Issue.record("expected .unsupported, got \(String(describing: error))") }
                continue
            }
            let cascade = try Cascade(contentsOfFile: file)
            #expect(cascade.stageCount > 0, "\(file)")
            #expect(cascade.windowSize.width > 0 && cascade.windowSize.height > 0)
        }
    }

    @Test func knownCascadesHaveTheDocumentedShape() throws {
        let defaultFace = try Cascade.load(.frontalFaceDefault)
        #expect(defaultFace.featureType == .haar)
        #expect(defaultFace.stageCount == 25)
        #expect(defaultFace.weakClassifierCount == 2913)
        #expect(defaultFace.windowSize == PixelSize(width: 24, height: 24))
        #expect(defaultFace.isStumpBased && !defaultFace.usesTiltedFeatures)

        let alt2 = try Cascade.load(.frontalFaceAlt2)
        #expect(alt2.maxNodesPerTree == 2)

        let lbp = try Cascade.load(.lbpFrontalFaceImproved)
        #expect(lbp.featureType == .lbp)
        #expect(lbp.stageCount == 19 && lbp.weakClassifierCount == 149)
        #expect(lbp.windowSize == PixelSize(width: 45, height: 45))

        #expect(try Cascade.load(.smile).usesTiltedFeatures)
        #expect(try Cascade.load(.eyeTreeEyeglasses).maxNodesPerTree == 3)
        for known in Cascade.Known.allCases {
            #expect(known.path.hasPrefix("/usr/share/opencv4/"))
        }
    }

    @Test func theMalformedCascadeOfTheBadCorpusIsATypedError() throws {
        let path = Fixtures.path("bad/cascade.xml")
        let error = #expect(throws: CascadeError.self) { try Cascade(contentsOfFile: path) }
        #expect(error?.file == path)
        #expect(error?.element.hasPrefix("opencv_storage/cascade/stages/_[0]/weakClassifiers/_[0]/internalNodes") == true, "\(String(describing: error))")
    }

    /// Values that overflowed 32-bit arithmetic while being checked, found by the fuzzer.
    @Test(arguments: 1...4)
    func aValueAtTheEdgeOfInt32IsATypedErrorNotATrap(case number: Int) throws {
        let path = Fixtures.root + "/fuzz/found/cascade-\(number)"
        let error = #expect(throws: CascadeError.self) { try Cascade(contentsOfFile: path) }
        #expect(error?.file == path)
        // Refused for its value, not for a file that went missing.
        guard case .invalidValue = error?.reason else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func truncatedFileThrowsATypedErrorNamingTheFile() throws {
        let bytes = Fixtures.read(Cascade.Known.frontalFaceDefault.path)
        let directory = Fixtures.temporaryDirectory()
        let path = directory + "/truncated.xml"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        Fixtures.write(Array(bytes.prefix(bytes.count / 2)), to: path)
        let error = #expect(throws: CascadeError.self) { try Cascade(contentsOfFile: path) }
        #expect(error?.file == path)
        // The innermost open element is named, from the document element down.
        #expect(error?.element.hasPrefix("opencv_storage/cascade/stages/_") == true)
        if case .malformedXML = error?.reason {} else { Issue.record("expected .malformedXML, got \(String(describing: error))") }
        #expect(error?.description.contains(path) == true)
    }

    @Test func malformedValuesNameTheElement() throws {
        let badIndex = #expect(throws: CascadeError.self) {
            try Cascade(xml: Array(tinyCascadeXML(featureIndex: "7").utf8), source: "bad-index.xml")
        }
        #expect(badIndex?.file == "bad-index.xml")
        #expect(badIndex?.element == "opencv_storage/cascade/stages/_[0]/weakClassifiers/_[0]/internalNodes")

        let badNumber = #expect(throws: CascadeError.self) {
            try Cascade(xml: Array(tinyCascadeXML(threshold: "minus-one").utf8), source: "bad-number.xml")
        }
        #expect(badNumber?.element == "opencv_storage/cascade/stages/_[0]/stageThreshold")

        let mismatched = #expect(throws: CascadeError.self) {
            try Cascade(xml: Array("<opencv_storage><cascade><stageType>BOOST</featureType></cascade></opencv_storage>".utf8),
                        source: "mismatched.xml")
        }
        #expect(mismatched?.element == "opencv_storage/cascade/stageType")

        let notXML = #expect(throws: CascadeError.self) { try Cascade(xml: Array("hello".utf8), source: "text.xml") }
        #expect(notXML?.file == "text.xml")

        let missing = #expect(throws: CascadeError.self) { try Cascade(contentsOfFile: "/nonexistent/cascade.xml") }
        #expect(missing?.file == "/nonexistent/cascade.xml")
        if case .unreadable = missing?.reason {} else { Issue.record("expected .unreadable") }
    }

    @Test func tinyCascadeParses() throws {
        let cascade = try Cascade(xml: Array(tinyCascadeXML().utf8), source: "tiny.xml")
        #expect(cascade.stageCount == 1 && cascade.weakClassifierCount == 1)
        #expect(cascade.source == "tiny.xml")
    }
}
