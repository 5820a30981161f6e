#if canImport(Glibc)
import Glibc
#endif

/// Whether this process runs under ThreadSanitizer or AddressSanitizer (`make test-sanitize`),
/// found from their runtimes' entry points: such a build runs several times slower, so a bound
/// on wall-clock time that a release build keeps is given room under them.
public enum Sanitizers {
    public static let areOn: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        let entryPoints: [String] = ["__tsan_init", "__asan_init"]
        return entryPoints.contains { name in dlsym(program, name) != nil }
    }()
}
