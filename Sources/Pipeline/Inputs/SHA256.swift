import GlossGeometry
import GlossImaging

/// SHA-256 (FIPS 180-4), to recognise an input whose content a finished run has already read.
///
/// Foundation on Linux has no digest API and no outside package can be fetched, so Gloss
/// carries this small one. Checked against the standard test vectors.
struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private var state: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    /// Bytes of an unfinished block, waiting for the next update.
    private var pending: [UInt8] = []
    private var length: UInt64 = 0
    private var schedule = [UInt32](repeating: 0, count: 64)

    init() {}

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    static func hex(of bytes: [UInt8]) -> String {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finish()
    }

    /// The digest of an image file's bytes, read a chunk at a time (memory stays flat however
    /// large the file); throws `CancellationError` between chunks once the calling task is
    /// cancelled, so a page's timeout stops it.
    static func hex(of file: ImageFile) throws -> String {
        var hasher = SHA256()
        try file.forEachChunk { chunk in
            try Task.checkCancellation()
            hasher.update(chunk)
        }
        return hasher.finish()
    }

    /// Adds `bytes` to the message: a file can be hashed a chunk at a time, never held whole.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length += UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = rest.prefix(64 - pending.count)
            pending += taken
            rest = rest.dropFirst(taken.count)
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { compress(blocksIn: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / 64 * 64
        compress(blocksIn: UnsafeRawBufferPointer(rebasing: rest.prefix(whole)))
        pending += rest.dropFirst(whole)
    }

    /// The digest of everything added, as 64 lowercase hexadecimal digits.
    mutating func finish() -> String {
        let bitLength = length * 8
        var tail = pending + [0x80]
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        tail.withUnsafeBytes { compress(blocksIn: $0) }
        return state.map { HexText.format($0, digits: 8) }.joined()
    }

    /// Runs the compression function over each whole 64-byte block of `data`.
    private mutating func compress(blocksIn data: UnsafeRawBufferPointer) {
        schedule.withUnsafeMutableBufferPointer { w in
            state.withUnsafeMutableBufferPointer { state in
                for block in stride(from: 0, to: data.count - 63, by: 64) {
                    for i in 0..<16 {
                        let at = block + 4 * i
                        w[i] = UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])
                    }
                    for i in 16..<64 {
                        let s0 = Self.rotate(w[i - 15], 7) ^ Self.rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                        let s1 = Self.rotate(w[i - 2], 17) ^ Self.rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var a = state[0], b = state[1], c = state[2], d = state[3]
                    var e = state[4], f = state[5], g = state[6], h = state[7]
                    for i in 0..<64 {
                        let s1 = Self.rotate(e, 6) ^ Self.rotate(e, 11) ^ Self.rotate(e, 25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ choice &+ Self.roundConstants[i] &+ w[i]
                        let s0 = Self.rotate(a, 2) ^ Self.rotate(a, 13) ^ Self.rotate(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ majority
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    state[0] &+= a; state[1] &+= b; state[2] &+= c; state[3] &+= d
                    state[4] &+= e; state[5] &+= f; state[6] &+= g; state[7] &+= h
                }
            }
        }
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
