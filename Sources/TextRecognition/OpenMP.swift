#if canImport(Glibc)
import Glibc
#endif

/// Debian builds Tesseract with OpenMP, which by default starts more threads than a small
/// machine has cores; they fight, and a page takes twice as long. Gloss parallelises across
/// pages instead, so every engine runs single-threaded. `OMP_THREAD_LIMIT` set from inside the
/// process comes too late (libgomp reads it at load time); limiting the active parallel levels
/// to zero works at any time. Looked up dynamically so Gloss also runs with a Tesseract built
/// without OpenMP.
let openMPSingleThreaded: Void = {
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "omp_set_max_active_levels") else {
        return
    }
    typealias SetMaxActiveLevels = @convention(c) (Int32) -> Void
    unsafeBitCast(symbol, to: SetMaxActiveLevels.self)(0)
}()
