import Foundation
import GlossIndex
import GlossContract
import GlossReports

/// Folds the outputs of shards (`annotate --shard K/N`, each run on its own machine) into one
/// batch: page files, index database, manifest, report and search data.
///
/// Merging is idempotent: merging a shard again, or merging into a batch that already holds
/// some of its pages, leaves one copy of each page. Page files are copied before the database
/// learns of them, so the index never names a file that is not there.
public enum BatchMerge {
    public static func merge(_ folders: [String], into output: String) throws -> BatchManifest {
        let layout = OutputLayout(folder: output)
        let target = URL(fileURLWithPath: output).standardizedFileURL.path
        for folder in folders where URL(fileURLWithPath: folder).standardizedFileURL.path == target {
            throw MergeError(folder: folder, reason: "is the output folder itself")
        }
        let shards = try folders.map { folder in (folder, try BatchIndex(folder: folder, create: false)) }
        try AtomicFile.createDirectory(layout.pagesFolder)
        AtomicFile.removeLeftovers(in: [layout.folder, layout.pagesFolder])
        let merged = try BatchIndex(folder: output, create: true)
        var fingerprint = try merged.setting("settings_hash")
        for (folder, shard) in shards {
            let theirs = try shard.setting("settings_hash")
            if let fingerprint, let theirs, fingerprint != theirs {
                throw MergeError(folder: folder, reason: "was read with other settings than the batch it is merged into")
            }
            fingerprint = fingerprint ?? theirs
        }
        for (folder, shard) in shards {
            try copyPages(from: OutputLayout(folder: folder).pagesFolder, to: layout.pagesFolder)
            try merged.merge(from: shard.path)
        }

        guard let settingsJSON = try merged.setting("settings") else {
            throw MergeError(folder: output, reason: "none of the shards records the settings it was read with")
        }
        let settings: AnnotationSettings
        do {
            settings = try JSONDecoder().decode(AnnotationSettings.self, from: Data(settingsJSON.utf8))
        } catch {
            throw MergeError(folder: output, reason: "the recorded settings are not this Gloss's: \(error)")
        }
        let pages = try merged.pages().map(ManifestEntry.init)
        let manifest = BatchManifest(generator: "Gloss \(glossVersion)", settings: settings, pages: pages)
        try AtomicFile.write(try JSONOutput.encode(manifest), to: layout.manifestPath)
        try BatchReport.writeAssets(into: layout)
        try BatchReport.writeSharedData(of: pages, searching: merged.searchablePages(), into: layout)
        try BatchReport.writeIndex(of: pages, into: layout)
        return manifest
    }

    /// Copies every finished file of a shard's `pages/` (not a killed run's temporary files).
    private static func copyPages(from source: String, to destination: String) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: source)
        } catch {
            throw MergeError(folder: source, reason: "cannot be listed")
        }
        for name in names.sorted() where !name.contains(".tmp-") {
            guard let bytes = FileManager.default.contents(atPath: source + "/" + name) else {
                throw MergeError(folder: source, reason: "\(name) cannot be read")
            }
            try AtomicFile.write(Array(bytes), to: destination + "/" + name)
        }
    }
}

/// A shard that cannot be merged, and why.
public struct MergeError: Error, Sendable, CustomStringConvertible {
    public var folder: String
    public var reason: String
    public var description: String { "\(folder): cannot merge: \(reason)" }
}

extension ManifestEntry {
    init(_ page: IndexedPageSummary) {
        source = page.source
        pageIndex = page.pageIndex
        id = page.name
        status = page.status
        error = page.error
        words = page.wordCount
        meanConfidence = page.meanConfidence
        faces = page.faceCount
        inputHash = page.inputHash
        settingsHash = page.settingsHash
        outputs = page.outputs
    }
}
