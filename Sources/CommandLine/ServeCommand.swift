import Foundation
import GlossHTTP
import GlossServe

/// `gloss serve`: the batch over HTTP, until Ctrl-C.
extension GlossCommand {
    static let serveDefaults = HTTPServerOptions()

    static let serveOptions: [OptionSpec] = [
        .option("port", short: "p", value: "N", "the port to listen on (0 picks a free one)", default: String(serveDefaults.port)),
        .option("bind", value: "ADDRESS", "the numeric address to listen on; 0.0.0.0 or :: opens it to the network",
                default: serveDefaults.address),
        .option("public-url", value: "URL", "the URL the batch is reached at (behind a proxy): IIIF ids are made under it"),
        .flag("read-only", "serve a published batch: no write route at all, no token, no lock"),
        .option("threads", value: "N", "requests answered at once", default: String(serveDefaults.threads)),
        helpOption,
    ]

    static let serveCommand = CommandSpec(
        usage: "gloss serve DIR [options]",
        summary: """
            Serves the batch in DIR over HTTP: its report as it is, its IIIF manifest with absolute
            ids (iiif/manifest.json) and a IIIF Content Search 2.0 service over its index, with CORS
            headers so a viewer on another site (Mirador) can load and search it. It listens on
            127.0.0.1 unless --bind says otherwise. Unless --read-only, it holds DIR's lock (no
            annotate may write it meanwhile) and prints a URL with the token writes need.
            Ctrl-C stops it.
            """,
        options: serveOptions)

    static func serve(_ words: ArraySlice<String>) async throws -> Int32 {
        let arguments = try serveCommand.parse(words)
        if arguments.has("help") {
            print(serveCommand.help, terminator: "")
            return 0
        }
        guard let folder = arguments.operands.first, arguments.operands.count == 1 else { throw UsageError("serve needs one DIR") }
        guard FileManager.default.fileExists(atPath: folder) else { throw UsageError("\(folder): no such batch folder") }
        var options = serveDefaults
        if let port = try arguments.integer("port", in: 0...65535) { options.port = UInt16(port) }
        if let threads = try arguments.integer("threads", in: 1...256) { options.threads = threads }
        if let address = arguments.value("bind") { options.address = address }
        let publicURL = try arguments.value("public-url").map { text in
            do { return try iiifBase(text) } catch { throw UsageError("--public-url takes an http(s) URL, not '\(text)'") }
        }
        let served = try await ServedBatch(folder: folder, options: options, publicURL: publicURL, readOnly: arguments.has("read-only"))
        printError("gloss: serving \(folder) at \(served.startURL)"
                   + (served.handler.token == nil ? " (read-only)" : ""))
        printError("gloss: IIIF manifest: \(served.manifestURL)")
        if !["127.0.0.1", "::1"].contains(options.address) {
            printError("gloss: listening on \(options.address): anyone who can reach this machine can read the batch")
        }
        // SIGINT or SIGTERM ends the stream; releasing `served` then stops the daemon, which
        // finishes the requests under way, and drops the lock.
        let (stopped, stop) = AsyncStream.makeStream(of: Void.self)
        let interruption = Interruption(message: "gloss: stopping the server") { stop.finish() }
        for await _ in stopped {}
        withExtendedLifetime((served, interruption)) {}
        printError("gloss: stopped")
        return 0
    }
}
