#if canImport(Glibc)
import Glibc
#endif

/// Debian builds Tesseract with OpenMP, which by default starts more threads than a small
/// machine has cores; they fight, and a page takes several times as long (18 s instead of 4 s
/// for an A4 page on two cores). Gloss parallelises across pages instead, so every engine runs
/// single-threaded.
///
/// `OMP_THREAD_LIMIT` set from inside the process comes too late (libgomp reads it at load
/// time). Limiting the active parallel levels to zero works, but libgomp keeps that setting per
/// calling thread, so it is applied on the thread that is about to recognise, every time.
/// Looked up dynamically so Gloss also runs with a Tesseract built without OpenMP.
enum OpenMP {
    private typealias SetMaxActiveLevels = @convention(c) (Int32) -> Void

    private static let setMaxActiveLevels: SetMaxActiveLevels? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_set_max_active_levels") else {
            return nil
        }
        return unsafeBitCast(symbol, to: SetMaxActiveLevels.self)
    }()

    /// Makes OpenMP regions entered from the current thread run on this thread alone.
    static func runSingleThreadedOnThisThread() {
        setMaxActiveLevels?(0)
    }
}
