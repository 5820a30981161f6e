import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// stdout and stderr as Gloss writes them: whole, and not at all once nobody reads them.
///
/// A log reader that goes (`gloss annotate … 2>&1 | grep -m1 ok`), a closed terminal or a
/// dropped ssh session must not end the batch: SIGPIPE is ignored (`ignoreBrokenPipes`), and
/// the first write that fails for any reason but an interruption (EPIPE, EIO on a hung-up
/// terminal) closes the stream for the rest of the run, so the batch goes on without its log and
/// still writes its manifest and index. Foundation's `FileHandle.write` traps on such an error.
enum StandardStreams {
    /// The streams that have lost their reader, a bit per descriptor (1 << 1 stdout, 1 << 2 stderr).
    private static let closed = Atomic(0)

    /// SIGPIPE ignored, so a write to a pipe without a reader fails with EPIPE instead of
    /// killing the process. Called once, first thing.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    static func writeOutput(_ bytes: [UInt8]) { write(bytes, to: STDOUT_FILENO) }
    static func writeError(_ text: String) { write(Array(text.utf8), to: STDERR_FILENO) }

    /// Whether the stream of `descriptor` (stdout or stderr) has lost its reader.
    static func isClosed(_ descriptor: Int32) -> Bool { closed.load(ordering: .relaxed) & (1 << descriptor) != 0 }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) {
        guard !isClosed(descriptor) else { return }
        func close() { closed.bitwiseOr(1 << descriptor, ordering: .relaxed) }
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result > 0 {
                    written += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else if result < 0 && errno == EAGAIN {
                    // A non-blocking descriptor that is full: wait for room, a second at most.
                    var wait = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&wait, 1, 1000) <= 0 {
                        close()
                        return
                    }
                } else {
                    close()
                    return
                }
            }
        }
    }
}
