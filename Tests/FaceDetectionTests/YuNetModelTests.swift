import Foundation
import GlossFaceDetection
import GlossModels
import GlossNeuralNetwork
import Testing

/// What `YuNetDetector` refuses to build from: each a `ModelError` naming the file and the cause.
struct YuNetModelTests {
    static func word(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A file of the older format, weights without a program: one float named `w`.
    @Test func aModelWithoutAProgramSaysSo() throws {
        let bytes = Array("GLOSSNN1".utf8) + Self.word(1) + Self.word(1) + Self.word(1) + Array("w".utf8) + Self.word(1)
            + Self.word(1) + Self.word(1) + Self.word(0)
        let model = try ModelFile(bytes: bytes, path: "old.bin")
        #expect(throws: ModelError(path: "old.bin", reason: "no program (a model file of version 1?); models/yunet/convert.py writes one")) {
            _ = try YuNetDetector(model: model, path: "old.bin")
        }
    }

    /// The built-in program with its output moved to the stride-8 heads alone (16 channels).
    @Test func aProgramGivingOtherOutputsIsRefused() throws {
        var model = try ModelFile(bytes: Models.yunet, path: "yunet.bin")
        #expect(model.program.hasSuffix("output t46\n"))
        model.program = model.program.replacingOccurrences(of: "output t46\n", with: "output t43\n")
        do {
            _ = try YuNetDetector(model: model, path: "moved.bin")
            Issue.record("a program of other outputs was taken")
        } catch {
            #expect(error.description == "moved.bin: model: the program gives 16 x 4 x 4 for a 32 x 32 picture, not YuNet's 48 x 4 x 4")
        }
    }

    /// A program whose stem takes one channel cannot read a colour picture.
    @Test func aStemOfOtherChannelsIsRefused() throws {
        var model = try ModelFile(bytes: Models.yunet, path: "yunet.bin")
        let stem = try #require(model.tensors.firstIndex { $0.name == "yunet.L1.weight" })
        #expect(model.tensors[stem].shape == [16, 3, 3, 3])
        model.tensors[stem].shape = [16, 1, 3, 3]
        model.tensors[stem].values = Array(model.tensors[stem].values.prefix(16 * 9))
        #expect(throws: ModelError.self) { _ = try YuNetDetector(model: model, path: "grey.bin") }
    }
}
