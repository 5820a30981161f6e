import Foundation
import GlossContract
@testable import GlossIndex
import Testing

/// A batch's database damaged on disk: found, named, and rebuilt whole from the pages.
@Suite struct RepairTests {
    enum Damage: CaseIterable {
        /// Another file where the database was.
        case notADatabase
        /// Emptied, as a crash before the first write or a careless `> gloss.sqlite` leaves it.
        case empty
        /// One page of the words table overwritten: the rest of the file reads.
        case page
    }

    /// A folder with the archive's index in it, closed, then damaged.
    final class DamagedBatch {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-repair-\(UUID().uuidString)").path
        var path: String { folder + "/" + BatchIndex.fileName }

        init(_ damage: Damage) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // Closed before it is damaged, so no connection writes its cache or log back over the damage.
            let (page, size) = try {
                let index = try BatchIndex(folder: folder, create: true)
                for (position, report) in archive.enumerated() { try index.record(indexed(report, position: position)) }
                let statement = try index.database.prepare(
                    "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_schema WHERE name = 'words'",
                    operation: "test")
                _ = try statement.step()
                return (statement.int(0), statement.int(1))
            }()
            let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            defer { try? file.close() }
            switch damage {
            case .notADatabase:
                try file.truncate(atOffset: 0)
                try file.write(contentsOf: Data(repeating: 0x47, count: 4096))
            case .empty:
                try file.truncate(atOffset: 0)
            case .page:
                try file.seek(toOffset: UInt64((page - 1) * size))
                try file.write(contentsOf: Data(repeating: 0xA5, count: size))
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    @Test func aWholeIndexAndAMissingOneAreNotDamaged() throws {
        let scratch = try ScratchIndex(archive)
        #expect(try BatchIndex.damage(in: scratch.folder) == nil)
        #expect(try BatchIndex.damage(in: scratch.folder + "/nothing-here") == nil)
    }

    @Test(arguments: Damage.allCases)
    func damageIsFoundAndSaid(damage: Damage) throws {
        let batch = try DamagedBatch(damage)
        let problem = try #require(try BatchIndex.damage(in: batch.folder))
        switch damage {
        case .notADatabase: #expect(problem == "file is not a database")
        case .empty: #expect(problem == "the file is empty (0 bytes)")
        case .page: #expect(problem.contains("malformed") || problem.contains("Page"), "\(problem)")
        }
    }

    @Test(arguments: Damage.allCases)
    func openingOrSearchingADamagedIndexIsADamageErrorNamingTheFile(damage: Damage) throws {
        let batch = try DamagedBatch(damage)
        #expect { try BatchIndex(folder: batch.folder, create: false).search("staff") } throws: { error in
            guard let error = error as? IndexError else { return false }
            return error.path == batch.path && error.isDamage
        }
    }

    @Test(arguments: Damage.allCases)
    func aRebuildPutsBackEveryPageAndLeavesNothingElse(damage: Damage) throws {
        let batch = try DamagedBatch(damage)
        let count = try BatchIndex.rebuild(in: batch.folder, from: archive.enumerated().map { indexed($1, position: $0) })
        #expect(count == archive.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: batch.folder) == [BatchIndex.fileName],
                "no temporary file, and no write-ahead log of the damaged file")
        #expect(try BatchIndex.damage(in: batch.folder) == nil)
        let rebuilt = try BatchIndex(folder: batch.folder, create: false)
        #expect(try rebuilt.comparableContents() == ScratchIndex(archive).index.comparableContents())
        #expect(try rebuilt.search("harbour").map(\.source) == ["c.png", "a.png"])
        #expect(try rebuilt.integrityProblems().isEmpty)
    }
}

/// Another program's database named like an index, and searching a batch: nothing is written
/// to a file Gloss did not make, and a search writes nothing at all.
@Suite struct ForeignDatabaseTests {
    /// A folder holding `gloss.sqlite` made by another program: one table, in rollback mode.
    static func foreign() throws -> (folder: String, bytes: Data) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-foreign-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = try Database(path: folder + "/" + BatchIndex.fileName, access: .create)
        try database.execute("PRAGMA journal_mode = DELETE; CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('mine');",
                             operation: "make")
        return (folder, try Data(contentsOf: URL(fileURLWithPath: folder + "/" + BatchIndex.fileName)))
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftAsItWas() throws {
        let (folder, bytes) = try Self.foreign()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/" + BatchIndex.fileName
        for open in [{ _ = try BatchIndex.searching(folder) }, { _ = try BatchIndex(folder: folder, create: false) },
                     { _ = try BatchIndex(folder: folder, create: true) }] {
            #expect { try open() } throws: { error in
                "\(error)".contains("not an index of Gloss's") || "\(error)".contains("empty, or not an index of Gloss's")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "the file is untouched")
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "not put in WAL mode")
        }
    }

    /// An index of this Gloss is searched for reading only; one of an older Gloss (schema 1)
    /// is brought up to date first.
    @Test func aSearchOpensForReadingAndUpgradesOnlyAnOlderIndex() throws {
        let scratch = try ScratchIndex(archive)
        #expect(try BatchIndex.searching(scratch.folder).database.userVersion == Schema.migrations.count)
        let older = try ScratchIndex(archive)
        try older.index.database.execute("DROP TABLE regions; PRAGMA user_version = 1;", operation: "make it older")
        let upgraded = try BatchIndex.searching(older.folder)
        #expect(try upgraded.database.userVersion == Schema.migrations.count)
        #expect(try upgraded.search("harbour").count == 2)
    }
}
