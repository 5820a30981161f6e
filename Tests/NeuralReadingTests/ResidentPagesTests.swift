import Foundation
@testable import GlossModels
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `Models.releasePages`: the pages of read-only file data that has been read stop counting in
/// the process's resident memory, and read the same when read again.
struct ResidentPagesTests {
    /// Kilobytes of `address`'s mapping resident in this process, from `/proc/self/smaps`.
    static func residentKilobytes(of address: UnsafeRawPointer) throws -> Int {
        let target = UInt(bitPattern: address)
        // `/proc` files state no size, so they are read a line at a time.
        guard let file = fopen("/proc/self/smaps", "r") else { throw ModelsTestError.noMapping }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 4096)
        var inside = false
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let line = String(decoding: buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = words.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= target && target < ends[1]
            } else if inside, words.first == "Rss:", words.count >= 2, let kilobytes = Int(words[1]) {
                return kilobytes
            }
        }
        throw ModelsTestError.noMapping
    }

    enum ModelsTestError: Error { case noMapping }

    @Test func readDataIsNoLongerResidentOnceReleased() throws {
        #if canImport(Glibc)
        let count = 1 << 20
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gloss-pages-\(getpid()).bin")
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = open(url.path, O_RDONLY)
        try #require(file >= 0)
        defer { close(file) }
        let mapped = try #require(mmap(nil, count, PROT_READ, MAP_PRIVATE, file, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(mapped, count) }
        let bytes = UnsafeRawBufferPointer(start: mapped, count: count)
        let sum = bytes.reduce(0) { $0 &+ Int($1) }
        #expect(try Self.residentKilobytes(of: mapped) == count / 1024)
        Models.releasePages(of: bytes)
        #expect(try Self.residentKilobytes(of: mapped) == 0)
        #expect(bytes.reduce(0) { $0 &+ Int($1) } == sum)
        #endif
    }
}
