import Foundation
import Testing

/// The documents that describe the package are checked against the package itself, so that
/// they cannot fall behind it: every target is on the architecture page, every module says
/// what it owns, and the README's links lead somewhere.
struct ArchitectureTests {
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The names of every target `Package.swift` declares, of any kind.
    static func targetNames() throws -> [String] {
        let manifest = try text("Package.swift")
        let declaration = /\.(?:target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/
        return manifest.matches(of: declaration).map { String($0.output.1) }
    }

    @Test func everyTargetIsOnTheArchitecturePage() throws {
        let names = try Self.targetNames()
        #expect(names.count >= 20, "Package.swift was not read: \(names)")
        let page = try Self.text("docs/architecture.md")
        let missing = names.filter { !page.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/architecture.md does not name the targets \(missing)")
    }

    /// A module's README says in a paragraph what it owns and what it must not know.
    @Test func everyModuleSaysWhatItOwnsAndWhatItMustNotKnow() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        // A C library's folder is a modulemap and a shim; an executable's is its `main.swift`.
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent($0).path)) ?? []
            return !files.contains("module.modulemap") && files != ["main.swift"]
        }
        #expect(modules.count >= 11)
        for module in modules {
            let readme = try Self.text("Sources/\(module)/README.md")
            let prose = readme.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: " ")
            #expect(prose.count >= 200, "Sources/\(module)/README.md is not a paragraph")
            #expect(prose.contains("must not"), "Sources/\(module)/README.md does not say what the module must not know")
        }
    }

    /// The README is a front door: short, and every page it links to exists.
    @Test func theReadmeIsShortAndItsLinksLeadToFiles() throws {
        let readme = try Self.text("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 200)
        let link = /\]\(((?:docs\/)[^)#]+)(?:#[^)]*)?\)/
        let targets = readme.matches(of: link).map { String($0.output.1) }
        #expect(targets.count >= 10)
        for target in targets {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target).path), "README links to \(target)")
        }
    }
}
