import GlossContract
import GlossGeometry

/// The batch as IIIF Presentation 3.0: `iiif/manifest.json` with one Canvas per page read,
/// each painted with the page's display copy, and per page up to three annotation pages of
/// its own file under `iiif/annotations/`, which a viewer loads only when it shows that page:
///
/// - `<id>-lines.json`: a `supplementing` annotation per line, its text as a `TextualBody`
///   with `textGranularity` `line` (IIIF Text Granularity extension);
/// - `<id>-words.json`: the same per word, with `textGranularity` `word`;
/// - `<id>-faces.json`: a `tagging` annotation per face, the body the tag "face", and the
///   detector's confidence as `gloss:confidence` on the annotation, a term the batch's own
///   context document (`iiif/context.json`) defines.
///
/// A page whose list would be empty gets no file. Targets are `<canvas>#xywh=x,y,w,h` in page
/// pixels, which are the canvas's, cut to the canvas (a face at the edge may reach past it).
///
/// Each canvas links its page's ALTO and hOCR (`seeAlso`) and its input's searchable PDF
/// (`rendering`) when the batch wrote them; a served manifest also names its Content Search
/// service (`search`).
///
/// With a base URL every id is absolute under it. Without one, ids are relative to the file
/// that holds them, as JSON-LD resolves them against the document's own URL: the Presentation
/// API asks for HTTP(S) URIs, so a batch never writes such a manifest (`annotate` writes none
/// without `--iiif-base`); only the unit tests read them.
public struct IIIFPresentation: Sendable {
    public static let folder = "iiif"
    public static let manifestPath = folder + "/manifest.json"
    public static let contextPath = folder + "/context.json"
    public static let annotationsFolder = folder + "/annotations"
    static let presentationContext = "http://iiif.io/api/presentation/3/context.json"
    static let textGranularityContext = "http://iiif.io/api/extension/text-granularity/context.json"
    /// The namespace of Gloss's own terms. It names, it does not locate: nothing is served there.
    public static let namespace = "https://gloss.invalid/terms#"

    /// Where the batch folder is published, ending in a slash; nil for relative ids.
    public var base: String?
    /// The manifest's label: the batch folder's name.
    public var label: String
    /// The text's language as BCP 47, when the batch was read in one known language.
    public var language: String?
    /// The Content Search 2.0 service the manifest names, and its autocomplete service, as
    /// absolute URLs; nil for a manifest without one (a static batch has no server to search).
    public var search: (service: String, autocomplete: String)?

    /// `base` gets a trailing slash if it lacks one; `languages` are Tesseract's codes.
    public init(base: String?, label: String, languages: [String]) {
        self.base = base.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        self.label = label
        let tags = Set(languages.compactMap { Self.languageTags[$0] })
        language = tags.count == 1 ? tags.first : nil
    }

    /// One page's annotation lists.
    public enum AnnotationKind: String, CaseIterable, Sendable {
        case lines, words, faces

        var label: String {
            switch self {
            case .lines: "Text lines"
            case .words: "Words"
            case .faces: "Faces"
            }
        }
    }

    /// What the manifest says of one page; small, so a batch of any size is held in memory.
    public struct Canvas: Sendable, Equatable {
        public var pageID: String
        public var title: String
        public var width: Int
        public var height: Int
        /// The display copy, relative to the batch folder, and its own size.
        public var image: Image?
        /// The annotation pages written for it, in `AnnotationKind` order.
        public var annotations: [AnnotationKind]
        /// The page's machine-readable transcriptions (ALTO, hOCR), relative to the batch folder.
        public var seeAlso: [Link] = []
        /// Other renderings of the page's input (its searchable PDF), relative to the batch folder.
        public var rendering: [Link] = []
    }

    /// A file of the batch a canvas links: `seeAlso` (a Dataset) or `rendering` (a Text).
    public struct Link: Sendable, Equatable {
        public var path: String
        public var format: String
        public var profile: String?
        public var label: String

        public init(path: String, format: String, profile: String? = nil, label: String) {
            self.path = path
            self.format = format
            self.profile = profile
            self.label = label
        }

        /// The links of a page's outputs by format name (`ManifestEntry.outputs`): ALTO and hOCR
        /// as `seeAlso`, the searchable PDF as `rendering`.
        public static func links(ofOutputs outputs: [String: String]) -> (seeAlso: [Link], rendering: [Link]) {
            var seeAlso: [Link] = [], rendering: [Link] = []
            if let alto = outputs[OutputFormat.alto.rawValue] {
                seeAlso.append(Link(path: alto, format: "application/xml", profile: "http://www.loc.gov/standards/alto/v4/alto.xsd",
                                    label: "ALTO XML"))
            }
            if let hocr = outputs[OutputFormat.hocr.rawValue] {
                seeAlso.append(Link(path: hocr, format: "text/vnd.hocr+html", profile: "http://kba.github.io/hocr-spec/1.2/",
                                    label: "hOCR"))
            }
            if let pdf = outputs[OutputFormat.pdf.rawValue] {
                rendering.append(Link(path: pdf, format: "application/pdf", label: "Searchable PDF"))
            }
            return (seeAlso, rendering)
        }
    }

    public struct Image: Sendable, Equatable {
        public var path: String
        public var width: Int
        public var height: Int

        public init(path: String, width: Int, height: Int) {
            self.path = path
            self.width = width
            self.height = height
        }
    }

    /// The canvas of a page that was read, and the annotation page files it refers to; nil for
    /// a page that was not read (it has no size to give a canvas).
    public func canvas(for report: PageReport, pageID: String, image: Image?,
                       outputs: [String: String] = [:]) throws -> (canvas: Canvas, files: [BatchFile])? {
        guard report.status == .ok, report.width > 0, report.height > 0 else { return nil }
        let fileName = report.source.split(separator: "/").last.map(String.init) ?? report.source
        let links = Link.links(ofOutputs: outputs)
        var canvas = Canvas(pageID: pageID, title: PageReport.title(source: fileName, pageIndex: report.pageIndex),
                            width: report.width, height: report.height, image: image, annotations: [],
                            seeAlso: links.seeAlso, rendering: links.rendering)
        var files: [BatchFile] = []
        for kind in AnnotationKind.allCases {
            let items = annotations(kind, of: report, canvas: canvas)
            guard !items.isEmpty else { continue }
            canvas.annotations.append(kind)
            let path = annotationPath(kind, pageID: pageID)
            let context: [JSONValue] = kind == .faces
                ? [.string(reference(Self.contextPath, from: Self.annotationsFolder))]
                : [.string(Self.textGranularityContext)]
            let page: JSONValue = .object([
                "@context": .array(context + [.string(Self.presentationContext)]),
                "id": .string(reference(path, from: Self.annotationsFolder)),
                "type": "AnnotationPage",
                "label": .object(["en": .array([.string(kind.label)])]),
                "items": .array(items),
            ])
            files.append(BatchFile(path: path, bytes: try page.encoded(pretty: false)))
        }
        return (canvas, files)
    }

    /// `iiif/manifest.json` for `canvases`, in order, and the context document of Gloss's terms.
    public func manifest(of canvases: [Canvas]) throws -> [BatchFile] {
        var members: [String: JSONValue] = [
            "@context": .string(Self.presentationContext),
            "id": .string(reference(Self.manifestPath, from: Self.folder)),
            "type": "Manifest",
            "label": .object(["none": .array([.string(label)])]),
            "summary": .object(["en": .array([.string(Self.summary(of: canvases))])]),
            "items": .array(canvases.map(canvasJSON)),
        ]
        // One searchable PDF per input: the manifest renders as the PDFs of its inputs, once each.
        var pdfs: [Link] = []
        for link in canvases.flatMap(\.rendering) where !pdfs.contains(link) { pdfs.append(link) }
        if !pdfs.isEmpty { members["rendering"] = .array(pdfs.map { linkJSON($0, type: "Text") }) }
        if let search {
            members["service"] = .array([.object([
                "id": .string(search.service),
                "type": "SearchService2",
                "service": .array([.object(["id": .string(search.autocomplete), "type": "AutoCompleteService2"])]),
            ])])
        }
        let manifest: JSONValue = .object(members)
        let context: JSONValue = .object(["@context": .object(["gloss": .string(Self.namespace)])])
        return [BatchFile(path: Self.manifestPath, bytes: try manifest.encoded(pretty: true)),
                BatchFile(path: Self.contextPath, bytes: try context.encoded(pretty: true))]
    }

    /// "12 pages read by Gloss from 3 files": what a viewer shows under the label.
    static func summary(of canvases: [Canvas]) -> String {
        let sources = Set(canvases.map { $0.title.components(separatedBy: " · ").first ?? $0.title })
        let pages = canvases.count == 1 ? "1 page" : "\(canvases.count) pages"
        return sources.count > 1 ? "\(pages) read by Gloss from \(sources.count) files" : "\(pages) read by Gloss"
    }

    private func linkJSON(_ link: Link, type: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(reference(link.path, from: Self.folder)), "type": .string(type), "format": .string(link.format),
            "label": .object(["en": .array([.string(link.label)])]),
        ]
        if let profile = link.profile { object["profile"] = .string(profile) }
        return .object(object)
    }

    /// The annotation page file of one kind for one page, relative to the batch folder.
    public static func annotationPath(_ kind: AnnotationKind, pageID: String) -> String {
        annotationsFolder + "/" + pageID + "-" + kind.rawValue + ".json"
    }

    func annotationPath(_ kind: AnnotationKind, pageID: String) -> String { Self.annotationPath(kind, pageID: pageID) }

    /// The id of the canvas of page `pageID`, as written in a file in `folder`.
    public func canvasID(_ pageID: String, from folder: String) -> String {
        reference(Self.folder + "/canvas/" + pageID, from: folder)
    }

    private func canvasJSON(_ canvas: Canvas) -> JSONValue {
        let id = canvasID(canvas.pageID, from: Self.folder)
        let painting: [JSONValue] = canvas.image.map { image in
            [.object([
                "id": .string(id + "/page/image"),
                "type": "Annotation",
                "motivation": "painting",
                "body": .object([
                    "id": .string(reference(image.path, from: Self.folder)),
                    "type": "Image",
                    "format": .string(image.path.lowercased().hasSuffix(".png") ? "image/png" : "image/jpeg"),
                    "width": .int(image.width),
                    "height": .int(image.height),
                ]),
                "target": .string(id),
            ])]
        } ?? []
        var object: [String: JSONValue] = [
            "id": .string(id),
            "type": "Canvas",
            "label": .object(["none": .array([.string(canvas.title)])]),
            "width": .int(canvas.width),
            "height": .int(canvas.height),
            "items": .array([.object(["id": .string(id + "/page"), "type": "AnnotationPage", "items": .array(painting)])]),
        ]
        if !canvas.seeAlso.isEmpty { object["seeAlso"] = .array(canvas.seeAlso.map { linkJSON($0, type: "Dataset") }) }
        if !canvas.rendering.isEmpty { object["rendering"] = .array(canvas.rendering.map { linkJSON($0, type: "Text") }) }
        if !canvas.annotations.isEmpty {
            object["annotations"] = .array(canvas.annotations.map { kind in
                .object([
                    "id": .string(reference(annotationPath(kind, pageID: canvas.pageID), from: Self.folder)),
                    "type": "AnnotationPage",
                    "label": .object(["en": .array([.string(kind.label)])]),
                ])
            })
        }
        return .object(object)
    }

    private func annotations(_ kind: AnnotationKind, of report: PageReport, canvas: Canvas) -> [JSONValue] {
        let target = canvasID(canvas.pageID, from: Self.annotationsFolder)
        let pageID = reference(annotationPath(kind, pageID: canvas.pageID), from: Self.annotationsFolder)
        let size = PixelSize(width: canvas.width, height: canvas.height)
        func annotation(_ number: Int, box: PixelRect, motivation: String, body: JSONValue,
                        extra: [String: JSONValue]) -> JSONValue? {
            guard let region = Self.fragment(box, in: size) else { return nil }
            var object: [String: JSONValue] = [
                "id": .string(pageID + "#" + String(kind.rawValue.prefix(1)) + String(number)),
                "type": "Annotation",
                "motivation": .string(motivation),
                "body": body,
                "target": .string(target + "#" + region),
            ]
            object.merge(extra) { _, new in new }
            return .object(object)
        }
        switch kind {
        case .lines:
            // A line whose words were all deleted by a reviewer has nothing to say.
            return report.lines.enumerated().compactMap { index, line in
                line.text.isEmpty ? nil : annotation(index + 1, box: line.box, motivation: "supplementing", body: textBody(line.text),
                           extra: ["textGranularity": "line"])
            }
        case .words:
            return report.words.enumerated().compactMap { index, word in
                annotation(index + 1, box: word.box, motivation: "supplementing", body: textBody(word.text),
                           extra: ["textGranularity": "word"])
            }
        case .faces:
            return report.faces.enumerated().compactMap { index, face in
                annotation(index + 1, box: face.box, motivation: "tagging",
                           body: .object(["type": "TextualBody", "value": "face", "format": "text/plain", "language": "en"]),
                           extra: ["gloss:confidence": .number(face.confidence)])
            }
        }
    }

    private func textBody(_ text: String) -> JSONValue {
        var body: [String: JSONValue] = ["type": "TextualBody", "value": .string(text), "format": "text/plain"]
        if let language { body["language"] = .string(language) }
        return .object(body)
    }

    /// `xywh=x,y,w,h` of `box` cut to the canvas; nil when nothing of it is on the canvas.
    static func fragment(_ box: PixelRect, in size: PixelSize) -> String? {
        let left = max(0, box.x), top = max(0, box.y)
        let right = min(size.width, box.x + box.width), bottom = min(size.height, box.y + box.height)
        guard right > left, bottom > top else { return nil }
        return "xywh=\(left),\(top),\(right - left),\(bottom - top)"
    }

    /// `path` (relative to the batch folder) as written in a file in `folder`: absolute under
    /// the base, else relative to that file, as a JSON-LD processor resolves it.
    public func reference(_ path: String, from folder: String) -> String {
        if let base { return base + path }
        var target = path.split(separator: "/"), here = folder.split(separator: "/")
        while let first = target.first, first == here.first, target.count > 1 {
            target.removeFirst()
            here.removeFirst()
        }
        return (Array(repeating: "..", count: here.count) + target.map(String.init)).joined(separator: "/")
    }

    /// Tesseract's language codes as BCP 47 tags, for the languages Tesseract ships that have
    /// one without a script. `frk` is German set in Fraktur, not Frankish; `osd` and `equ` are
    /// not languages.
    static let languageTags: [String: String] = [
        "ara": "ar", "bul": "bg", "cat": "ca", "ces": "cs", "chi_sim": "zh-Hans", "chi_tra": "zh-Hant", "cym": "cy",
        "dan": "da", "deu": "de", "ell": "el", "eng": "en", "est": "et", "eus": "eu", "fin": "fi", "fra": "fr",
        "frk": "de", "gle": "ga", "glg": "gl", "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu", "ind": "id",
        "isl": "is", "ita": "it", "jpn": "ja", "kor": "ko", "lat": "la", "lav": "lv", "lit": "lt", "nld": "nl",
        "nor": "no", "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru", "slk": "sk", "slv": "sl", "spa": "es",
        "srp": "sr", "swe": "sv", "tha": "th", "tur": "tr", "ukr": "uk", "vie": "vi",
    ]
}

/// JSON built as values: the IIIF documents are trees of objects whose keys vary by kind,
/// which a value type per kind would spell out at length for no safety gained.
public enum JSONValue: Encodable, ExpressibleByStringLiteral, Sendable {
    case string(String)
    case int(Int)
    case number(Double)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }

    /// Sorted keys, so the same batch gives the same bytes.
    func encoded(pretty: Bool) throws -> [UInt8] {
        try JSONOutput.encode(self, pretty: pretty)
    }
}
