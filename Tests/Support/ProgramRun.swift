import Foundation

/// A program run to its end, with its status and both outputs.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Runs `program` (in `folder`, or the tests' own) and waits for it.
    public static func run(_ program: String, _ arguments: [String], in folder: String? = nil) throws -> ProgramRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProgramRun(status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
                          standardError: String(decoding: errorData, as: UTF8.self))
    }
}
