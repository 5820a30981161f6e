import CPoppler
import GlossGeometry
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// A PDF page is drawn, and its text read, by `gloss-render`: a small executable of this
// package, started beside the running one for each page (posix_spawn, never a fork of this
// multi-threaded process). Poppler has no way to stop a page half drawn, and a page may ask it
// for gigabytes; a process can be killed the moment its page is cancelled or times out, and its
// address space is bounded from the pixel limit, so a page that needs more dies alone.
//
//     Gloss ──(the PDF on descriptor 3, the page and limits as arguments)──> gloss-render
//           <──(stdout: a header of numbers and text, then the pixels or the boxes)──┘

extension PDFDocument {
    /// Page `index` drawn by `gloss-render`, with the plan it was drawn by. The same process
    /// reads the page's text layer, kept for `textLayerInChild` (the decode stage asks for both;
    /// starting a process costs some 20 ms of CPU).
    func renderInChild(page index: Int, pixelLimit: Int) throws -> (Raster, PagePlan) {
        var (header, payload) = try PDFRenderProcess.run(.render, page: index, document: self, pixelLimit: pixelLimit,
                                                         payloadLimit: pixelLimit * 3 + PDFRenderProcess.textLimit)
        let plan = PagePlan(pointWidth: try header.double(), pointHeight: try header.double(), resolution: try header.integer(),
                            size: PixelSize(width: try header.integer(), height: try header.integer()),
                            isScan: try header.integer() != 0)
        let layout: Raster.Layout = try header.integer() == 1 ? .gray : .rgb
        let count = plan.size.pixelCount * layout.rawValue
        guard plan.size.pixelCount <= pixelLimit, payload.count >= count else {
            throw ImagingError(path: path, reason: .renderFailed("gloss-render answered \(payload.count) bytes for \(plan.size)"))
        }
        let text = try Self.textLayer(from: &header, boxes: payload[count...])
        remember(plan, page: index)
        texts.withLock { texts in
            if !texts.read.contains(index) { texts.kept[index] = .some(text) }
        }
        // The boxes that follow the pixels go in place: a copy of the pixels would be the page again.
        payload.removeSubrange(count...)
        return (Raster(width: plan.size.width, height: plan.size.height, layout: layout, pixels: payload), plan)
    }

    /// The text layer of page `index`: the one read when it was drawn, or read by `gloss-render`.
    func textLayerInChild(page index: Int, pixelLimit: Int) throws -> PDFTextLayer? {
        let kept = texts.withLock { texts in
            texts.read.insert(index)
            return texts.kept.removeValue(forKey: index)
        }
        if let kept { return kept }
        let answer = try PDFRenderProcess.run(.text, page: index, document: self, pixelLimit: pixelLimit,
                                              payloadLimit: PDFRenderProcess.textLimit)
        var header = answer.header
        return try Self.textLayer(from: &header, boxes: answer.payload[...])
    }

    /// The text layer as `PDFPageService.answerText` wrote it: in the header, then its boxes.
    private static func textLayer(from header: inout WireReader, boxes bytes: ArraySlice<UInt8>) throws -> PDFTextLayer? {
        guard try header.integer() != 0 else { return nil }
        let text = try header.string()
        let page = (width: try header.double(), height: try header.double())
        let laidOut = try header.integer() != 0
        var payload = WireReader(Array(bytes))
        let boxes = laidOut ? try (0..<bytes.count / 8).map { _ in try payload.double() } : nil
        return PDFRawText(text: text, boxes: boxes, page: page).layer
    }

    /// A descriptor of the document's bytes for `gloss-render` to map: the mapped file's own, or
    /// for bytes in memory a memory file written once, the first time a page is drawn.
    func sharedDescriptor() throws -> Int32 {
        try shared.withLock { shared in
            if let shared { return shared.descriptor }
            let made: SharedBytes
            switch bytes {
            case .file(let file): made = SharedBytes(descriptor: file.descriptor, owned: false)
            case .memory(let array):
                let descriptor = gloss_memory_file()
                guard descriptor >= 0 else {
                    throw ImagingError(path: path, reason: .renderFailed("no memory file for gloss-render: \(systemError())"))
                }
                made = SharedBytes(descriptor: descriptor, owned: true)
                try array.withUnsafeBytes { all in
                    var written = 0
                    while written < all.count {
                        let count = write(descriptor, all.baseAddress! + written, all.count - written)
                        if count < 0, errno == EINTR { continue }
                        guard count > 0 else {
                            throw ImagingError(path: path, reason: .renderFailed("cannot write the memory file: \(systemError())"))
                        }
                        written += count
                    }
                }
            }
            shared = made
            return made.descriptor
        }
    }
}

/// A descriptor handed to `gloss-render`, closed with the document when it was opened for it.
final class SharedBytes: Sendable {
    let descriptor: Int32
    private let owned: Bool

    init(descriptor: Int32, owned: Bool) {
        self.descriptor = descriptor
        self.owned = owned
    }

    deinit {
        if owned { close(descriptor) }
    }
}

/// Starting `gloss-render` for one page and reading its answer; the child is killed as soon as
/// the calling task is cancelled (Ctrl-C, the page timeout), checked every `pollInterval`.
enum PDFRenderProcess {
    enum Job: String {
        case render, text
    }

    /// How often a wait for the child looks at the task's cancellation, in milliseconds.
    static let pollInterval: Int32 = 20
    /// The most bytes of text and boxes a page's text layer may come back with.
    static let textLimit = 256 << 20
    /// What the renderer may take beyond its pixels: Poppler, Cairo, fonts and the text layout.
    static let memoryAllowance = 256 << 20

    /// The address space `gloss-render` may add to what it has on starting, from the pixel
    /// limit: the page's surface (4 bytes a pixel) and its copy as grey or RGB (3), and one
    /// image of the page at the limit held whole as Poppler holds it (4 bytes a pixel), plus
    /// `memoryAllowance`. A page that needs more fails alone: its allocation fails, or the
    /// renderer dies.
    static func addressSpace(forPixelLimit pixelLimit: Int) -> Int {
        let (pixels, overflow) = pixelLimit.multipliedReportingOverflow(by: 11)
        return overflow ? Int.max / 2 : pixels + memoryAllowance
    }

    /// The environment `gloss-render` runs in: Gloss's own, without Swift's crash backtracer,
    /// which would take seconds to describe a renderer that ran out of memory to nobody.
    static let environment: [String] = {
        var variables: [String] = []
        var entry = environ
        while let variable = entry.pointee {
            let text = String(cString: variable)
            if !text.hasPrefix("SWIFT_BACKTRACE=") { variables.append(text) }
            entry += 1
        }
        return variables + ["SWIFT_BACKTRACE=enable=no"]
    }()

    /// `gloss-render` beside the running executable (`/proc/self/exe`'s folder), where the
    /// package builds it and `make install` puts it; nil when it is not there.
    static let executable: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = own.lastIndex(of: "/") else { return nil }
        let candidate = String(own[..<slash]) + "/gloss-render"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }()

    /// Runs `job` for page `index` of `document` and returns the child's header and payload, or
    /// throws the child's own error (with the document's path), a cancellation, or why the child
    /// gave no answer.
    static func run(_ job: Job, page index: Int, document: PDFDocument, pixelLimit: Int, payloadLimit: Int)
        throws -> (header: WireReader, payload: [UInt8]) {
        let path = document.path
        guard let executable else {
            throw ImagingError(path: path, reason: .renderFailed("gloss-render is not installed beside this program (make build, or swift build, makes both)"))
        }
        try Task.checkCancellation()
        let child = try ChildProcess(executable, arguments: [job.rawValue, String(index), String(document.resolution),
                                                             String(pixelLimit), String(getpid())],
                                     document: try document.sharedDescriptor(), path: path)
        do {
            let length = try child.readInteger()
            guard length >= 0, length <= textLimit else { throw ChildProcess.Failure.badAnswer }
            var header = WireReader(try child.read(count: length))
            if try header.integer() != 0 {
                let reason = try header.reason()
                _ = try child.finish()
                throw ImagingError(path: path, reason: reason)
            }
            let size = try child.readInteger()
            guard size >= 0, size <= payloadLimit else { throw ChildProcess.Failure.badAnswer }
            let payload = try child.read(count: size)
            _ = try child.finish()
            return (header, payload)
        } catch let failure as ChildProcess.Failure {
            throw ImagingError(path: path, reason: try child.reason(for: failure, page: index, pixelLimit: pixelLimit))
        }
    }
}

/// One `gloss-render` process: started with the document on descriptor 3 and its standard
/// output on a pipe, in a process group of its own (a Ctrl-C reaches Gloss, which then kills
/// it), and killed and reaped with its owner if it is still running.
final class ChildProcess {
    enum Failure: Error {
        /// The answer ended early or made no sense: the child died, or is not gloss-render.
        case badAnswer
    }

    private let pid: pid_t
    private let output: Int32
    private var status: (code: Int32, peakKilobytes: Int)?

    init(_ executable: String, arguments: [String], document: Int32, path: String) throws {
        var ends: [Int32] = [0, 0]
        guard gloss_pipe(&ends) == 0 else {
            throw ImagingError(path: path, reason: .renderFailed("no pipe for gloss-render: \(systemError())"))
        }
        defer { close(ends[1]) }
        // A descriptor that is 3 already would keep its close-on-exec flag through dup2.
        let source = document == 3 ? fcntl(document, F_DUPFD_CLOEXEC, 10) : document
        defer { if source != document { close(source) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, source, 3)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([executable] + arguments).map { strdup($0) }, envp = PDFRenderProcess.environment.map { strdup($0) }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
        guard spawned == 0 else {
            close(ends[0])
            throw ImagingError(path: path, reason: .renderFailed("cannot start gloss-render: \(String(cString: strerror(spawned)))"))
        }
        self.pid = pid
        self.output = ends[0]
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = reap()
        }
        close(output)
    }

    /// Fills `count` bytes from the child, killing it and throwing `CancellationError` once the
    /// task is cancelled.
    func read(count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { target in
            var filled = 0
            while filled < count {
                if Task.isCancelled {
                    kill(pid, SIGKILL)
                    _ = reap()
                    throw CancellationError()
                }
                var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, PDFRenderProcess.pollInterval)
                if polled == 0 || (polled < 0 && errno == EINTR) { continue }
                let got = Glibc.read(output, target.baseAddress! + filled, count - filled)
                if got < 0, errno == EINTR || errno == EAGAIN { continue }
                guard got > 0 else { throw Failure.badAnswer }
                filled += got
            }
        }
        return bytes
    }

    func readInteger() throws -> Int {
        var reader = WireReader(try read(count: 8))
        return try reader.integer()
    }

    /// Waits for the child to end (it ends as soon as it has answered) and returns its status:
    /// looked at again after 0.1 ms, then twice as long each time, up to `pollInterval`.
    func finish() throws -> Int32 {
        if let status { return status.code }
        var pause: UInt32 = 100
        while true {
            if Task.isCancelled {
                kill(pid, SIGKILL)
                _ = reap()
                throw CancellationError()
            }
            var code: Int32 = 0
            var usage = rusage()
            let ended = wait4(pid, &code, WNOHANG, &usage)
            if ended == pid {
                status = (code, usage.ru_maxrss)
                return code
            }
            if ended < 0, errno != EINTR { return -1 }
            usleep(pause)
            pause = min(pause * 2, UInt32(PDFRenderProcess.pollInterval) * 1000)
        }
    }

    @discardableResult
    private func reap() -> Int32 {
        var code: Int32 = 0
        var usage = rusage()
        while wait4(pid, &code, 0, &usage) < 0, errno == EINTR {}
        status = (code, usage.ru_maxrss)
        return code
    }

    /// Why a child gave no answer: the memory it was allowed ran out (it died having used most
    /// of it), or it stopped for another reason, named by its signal or status.
    func reason(for failure: Failure, page index: Int, pixelLimit: Int) throws -> ImagingError.Reason {
        let code = try finish()
        let allowance = PDFRenderProcess.addressSpace(forPixelLimit: pixelLimit)
        let peak = (status?.peakKilobytes ?? 0) * 1024
        let signalled = code & 0x7F != 0 && code & 0x7F != 0x7F
        if peak * 2 >= allowance || (signalled && peak * 4 >= allowance) {
            return .renderNeedsTooMuchMemory(megabytes: allowance >> 20, limit: pixelLimit)
        }
        if signalled { return .renderFailed("gloss-render stopped with signal \(code & 0x7F) on page \(index + 1)") }
        return .renderFailed("gloss-render ended with status \((code >> 8) & 0xFF) and no answer for page \(index + 1)")
    }
}

// MARK: The child's side

/// The surfaces Poppler asks Cairo for, in `gloss-render`: its `cairo_image_surface_create`
/// asks here first, so that the size an image declares is known before any of it is decoded.
/// Poppler holds each image it draws whole, at its declared size; a surface refused here makes
/// it skip that image without reading it.
public final class SurfaceGate: Sendable {
    public static let shared = SurfaceGate()

    private enum Mode {
        /// Every surface is made: Gloss's own, and anything outside a page.
        case open
        /// Sizes are noted and every surface refused: what a page would draw, drawing nothing.
        case measure
        /// Surfaces above the pixel limit are noted and refused.
        case limit(Int)
    }

    private let state = Mutex<(mode: Mode, noted: [PixelSize])>((.open, []))

    /// Whether Cairo may make a `width` x `height` surface now. Called by `gloss-render`'s
    /// `cairo_image_surface_create`, before Cairo's own.
    public func admits(width: Int32, height: Int32) -> Bool {
        state.withLock { state in
            let size = PixelSize(width: Int(width), height: Int(height))
            switch state.mode {
            case .open: return true
            case .measure:
                state.noted.append(size)
                return false
            case .limit(let limit):
                guard width > 0, height > 0, size.pixelCount > limit else { return true }
                state.noted.append(size)
                return false
            }
        }
    }

    /// Runs `body` refusing every surface; returns the sizes asked for, in order.
    func measuring<Result>(_ body: () throws -> Result) rethrows -> (Result, [PixelSize]) {
        try with(.measure, body)
    }

    /// Runs `body` refusing surfaces above `limit` pixels; returns those refused.
    func limiting<Result>(to limit: Int, _ body: () throws -> Result) rethrows -> (Result, [PixelSize]) {
        try with(.limit(limit), body)
    }

    private func with<Result>(_ mode: Mode, _ body: () throws -> Result) rethrows -> (Result, [PixelSize]) {
        state.withLock { $0 = (mode, []) }
        defer { state.withLock { $0.mode = .open } }
        let result = try body()
        return (result, state.withLock { $0.noted })
    }
}

/// `gloss-render`'s work: `gloss-render JOB PAGE RESOLUTION PIXEL-LIMIT PARENT`, the PDF on
/// descriptor 3, the answer on standard output (`PDFRenderProcess` reads it).
public enum PDFPageService {
    /// Runs one job and returns the exit status: 0 with an answer written (an error is an
    /// answer too), 2 for arguments that are not a job.
    public static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 6, let job = PDFRenderProcess.Job(rawValue: arguments[1]), let index = Int(arguments[2]),
              let resolution = Int(arguments[3]), let pixelLimit = Int(arguments[4]), let parent = pid_t(arguments[5]) else {
            return 2
        }
        // Dies with Gloss, and does nothing for a Gloss that died before this line.
        gloss_die_with_parent()
        guard getppid() == parent else { return 3 }
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none)
        limitAddressSpace(adding: PDFRenderProcess.addressSpace(forPixelLimit: pixelLimit))
        var header = WireWriter(), payload: [UInt8] = []
        do {
            let file = try OpenFile(descriptor: 3, path: "", maximumSize: Int.max)
            let document = try PDFDocument(.file(file), path: "", resolution: resolution)
            header.integer(0)
            switch job {
            case .render:
                let (raster, plan) = try document.render(page: index, pixelLimit: pixelLimit)
                header.double(plan.pointWidth)
                header.double(plan.pointHeight)
                for value in [plan.resolution, plan.size.width, plan.size.height, plan.isScan ? 1 : 0, raster.layout.rawValue] {
                    header.integer(value)
                }
                payload = raster.pixels
                payload += answerText(try document.rawText(page: index), in: &header)
            case .text:
                payload = answerText(try document.rawText(page: index), in: &header)
            }
        } catch let error as ImagingError {
            header = WireWriter()
            header.integer(1)
            header.reason(error.reason)
            payload = []
        } catch {
            header = WireWriter()
            header.integer(1)
            header.reason(.renderFailed(String(describing: error)))
            payload = []
        }
        var framed = WireWriter()
        framed.integer(header.bytes.count)
        return write(framed.bytes) && write(header.bytes) && answerPayload(payload) ? 0 : 1
    }

    /// Writes `text` into `header` and returns its boxes, as `textLayer(from:boxes:)` reads them.
    private static func answerText(_ text: PDFRawText?, in header: inout WireWriter) -> [UInt8] {
        guard let text else {
            header.integer(0)
            return []
        }
        header.integer(1)
        header.string(text.text)
        header.double(text.page.width)
        header.double(text.page.height)
        header.integer(text.boxes == nil ? 0 : 1)
        var boxes = WireWriter()
        for value in text.boxes ?? [] { boxes.double(value) }
        return boxes.bytes
    }

    private static func answerPayload(_ payload: [UInt8]) -> Bool {
        var length = WireWriter()
        length.integer(payload.count)
        return write(length.bytes) && write(payload)
    }

    private static func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { all in
            var written = 0
            while written < all.count {
                let count = Glibc.write(1, all.baseAddress! + written, all.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                written += count
            }
            return true
        }
    }

    /// Bounds the address space to what the process has now plus `extra` bytes.
    private static func limitAddressSpace(adding extra: Int) {
        var now = 0
        if let statm = fopen("/proc/self/statm", "r") {
            var pages = 0
            if firstNumber(in: statm, &pages) { now = pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
            fclose(statm)
        }
        let total = now + extra
        var limit = rlimit(rlim_cur: rlim_t(total), rlim_max: rlim_t(total))
        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
    }

    /// The first number of a `/proc` file.
    private static func firstNumber(in file: UnsafeMutablePointer<FILE>, _ value: inout Int) -> Bool {
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return false }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let first = text.split(separator: " ").first, let number = Int(first) else { return false }
        value = number
        return true
    }
}

// MARK: The answer's encoding

/// Numbers (64-bit, little-endian) and strings (a length, then UTF-8) written one after another.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func integer(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) {
        integer(Int(Int64(bitPattern: value.bitPattern)))
    }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8)
        integer(utf8.count)
        bytes.append(contentsOf: utf8)
    }

    /// The reasons a page fails with in `gloss-render`; any other becomes `renderFailed`.
    mutating func reason(_ reason: ImagingError.Reason) {
        switch reason {
        case .tooLarge(let width, let height, let limit): [1, width, height, limit].forEach { integer($0) }
        case .tooLargeForDecoder(let width, let height, let limit, let why):
            [2, width, height, limit].forEach { integer($0) }
            string(why)
        case .corrupt(let why):
            integer(3)
            string(why)
        case .drawsTooLargeImage(let width, let height, let limit): [4, width, height, limit].forEach { integer($0) }
        case .noSuchPage(let index, let count): [5, index, count].forEach { integer($0) }
        case .renderFailed(let why):
            integer(6)
            string(why)
        default:
            integer(6)
            string(ImagingError(path: "", reason: reason).reasonText)
        }
    }
}

/// Reads what `WireWriter` wrote; anything short or out of range is `ChildProcess.Failure.badAnswer`.
struct WireReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func integer() throws -> Int {
        guard at + 8 <= bytes.count else { throw ChildProcess.Failure.badAnswer }
        var value: Int64 = 0
        for index in (0..<8).reversed() { value = value << 8 | Int64(bytes[at + index]) }
        at += 8
        return Int(value)
    }

    mutating func double() throws -> Double {
        Double(bitPattern: UInt64(bitPattern: Int64(try integer())))
    }

    mutating func string() throws -> String {
        let count = try integer()
        guard count >= 0, at + count <= bytes.count else { throw ChildProcess.Failure.badAnswer }
        defer { at += count }
        return String(decoding: bytes[at..<at + count], as: UTF8.self)
    }

    mutating func reason() throws -> ImagingError.Reason {
        switch try integer() {
        case 1: return .tooLarge(width: try integer(), height: try integer(), limit: try integer())
        case 2: return .tooLargeForDecoder(width: try integer(), height: try integer(), limit: try integer(), why: try string())
        case 3: return .corrupt(try string())
        case 4: return .drawsTooLargeImage(width: try integer(), height: try integer(), limit: try integer())
        case 5: return .noSuchPage(try integer(), pageCount: try integer())
        case 6: return .renderFailed(try string())
        default: throw ChildProcess.Failure.badAnswer
        }
    }
}
