import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM for a running batch: the first stops it cleanly (no new pages, pages in
/// flight cancelled, the manifest and index of every finished page written); a second SIGINT
/// exits at once.
final class Interruption: @unchecked Sendable {
    // `@unchecked`: `sources` is set once in `init` and only kept alive afterwards.
    private let count = Atomic(0)
    private var sources: [any DispatchSourceSignal] = []

    init(stop: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if count.add(1, ordering: .relaxed).newValue > 1 { _exit(130) }
                printError("gloss: stopping; finished pages are kept (press Ctrl-C again to quit at once)")
                stop()
            }
            source.resume()
            sources.append(source)
        }
    }

    var happened: Bool { count.load(ordering: .relaxed) > 0 }
}
