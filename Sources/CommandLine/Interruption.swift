import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP for a running batch: the first stops it cleanly (no new pages,
/// pages in flight cancelled, the manifest and index of every finished page written); a second
/// SIGINT or SIGTERM exits at once. SIGHUP (a closed terminal, a dropped ssh session) is a stop
/// like SIGTERM, and a hangup that follows a stop changes nothing: the terminal going away is
/// no reason to lose what the stop is writing.
final class Interruption: @unchecked Sendable {
    // `@unchecked`: `sources` is set once in `init` and only kept alive afterwards.
    private let count = Atomic(0)
    private var sources: [any DispatchSourceSignal] = []

    /// `message` is what the first signal prints.
    init(message: String = "gloss: stopping; finished pages are kept (press Ctrl-C again to quit at once)",
         stop: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            // Under `nohup` a hangup is to be ignored, and stays so.
            let previous = signal(signalNumber, SIG_IGN)
            if signalNumber == SIGHUP, Self.address(previous) == Self.address(SIG_IGN) { continue }
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                guard count.add(1, ordering: .relaxed).newValue == 1 else {
                    if signalNumber != SIGHUP { _exit(130) }
                    return
                }
                printError(message)
                stop()
            }
            source.resume()
            sources.append(source)
        }
    }

    private static func address(_ handler: __sighandler_t?) -> Int { unsafeBitCast(handler, to: Int.self) }

    var happened: Bool { count.load(ordering: .relaxed) > 0 }
}
