import CVips
import Glibc

/// libvips is initialised once per process, before the first call.
enum Vips {
    static let ready: Bool = gallery_vips_init() == 0
}

/// Process-wide libvips settings.
public enum ImagingSettings {
    /// Threads libvips uses inside one image operation. Where several images are worked on at
    /// once (ingestion's workers, at least one per core), one thread each does the same work with
    /// less hand-over between threads: measured 10 % faster for a folder import on 2 cores.
    public static func threadsPerImage(_ n: Int) {
        guard Vips.ready else { return }
        gallery_vips_set_concurrency(Int32(max(1, n)))
    }
}

extension Vips {
    /// Runs one libvips call (`body` answers 0 on success) and answers nil, or the failure's own
    /// error line. libvips keeps one error buffer per process: read after a failure, it could hold
    /// another thread's failure (a JPEG's "Premature end of input file" told for a GIF, session
    /// 18). So every call runs holding `errors` shared, and a failed call runs once more holding it
    /// alone, the buffer cleared first: no other call of libvips runs meanwhile, and the line read
    /// is this call's. Failures are rare; the price is the repeat and the wait for the calls in
    /// flight. `body` must not call `run` itself.
    static func run(_ body: () -> Int32) -> String? {
        if errors.shared(body) == 0 { return nil }
        return errors.exclusive {
            gallery_vips_error_clear()
            let rc = body()
            let text = takeError()
            return rc == 0 ? nil : text
        }
    }

    static let errors = SharedLock()

    /// The libvips error buffer as text, then cleared (read it only inside `run`'s exclusive part).
    @discardableResult static func takeError() -> String {
        let text = gallery_vips_error().map { String(cString: $0) } ?? ""
        gallery_vips_error_clear()
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? "libvips failed" : line
    }

    /// Copies a g_malloc'ed buffer into a Swift array and frees it.
    static func take(_ pointer: UnsafeMutableRawPointer?, _ count: Int) -> [UInt8] {
        guard let pointer else { return [] }
        defer { gallery_g_free(pointer) }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// A readers-writer lock that lets a waiting writer in before new readers (glibc's default lets
/// readers starve it): libvips' calls share it; reading an error takes it alone (`Vips.run`).
final class SharedLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    func shared<T>(_ body: () -> T) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }

    func exclusive<T>(_ body: () -> T) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }
}
