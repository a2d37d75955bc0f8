import Foundation
import CompressNIO
import CZstd

#if os(Linux)
/// glibc's malloc_trim (malloc.h, which the Glibc module does not bring in).
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32
#endif
import Dispatch
import Hummingbird
import GalleryCore
import GalleryStore
import Synchronization

/// How the columns' body is compressed for clients that accept gzip: zlib's default level,
/// once per version, off the request path (BENCHMARKS.md, "First-load transfer").
public enum ColumnsCompression {
    public static func gzip(_ body: ByteBuffer) throws -> ByteBuffer {
        var input = body
        return try input.compress(with: .gzip(configuration: ZlibConfiguration(windowSize: 15, compressionLevel: 6, memoryLevel: 8)))
    }

    /// Zstandard at its default level (3), for browsers that send `zstd` in Accept-Encoding
    /// (Chromium since 123): a little smaller than gzip's level 6 (4.3 against 5.1 MB at a
    /// million items), made ~30x faster, decoded ~7x faster; in Chromium the body reached the
    /// page 20–35 ms sooner at 1M (most of that time is moving the bytes into the page, whatever
    /// the encoding: BENCHMARKS.md, "zstd").
    public static func zstd(_ body: ByteBuffer, level: Int32 = 3) throws -> ByteBuffer {
        try body.withUnsafeReadableBytes { input in
            let bound = ZSTD_compressBound(input.count)
            var out = ByteBuffer()
            let written = try out.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { output in
                let n = ZSTD_compress(output.baseAddress, bound, input.baseAddress, input.count, level)
                guard ZSTD_isError(n) == 0 else { throw ZstdError(message: String(cString: ZSTD_getErrorName(n))) }
                return n
            }
            precondition(written <= bound)
            return out
        }
    }

    struct ZstdError: Error { var message: String }
}

/// The latest columnar snapshot body of the few most recently loaded galleries, keyed by the
/// gallery's version and name: a page load at an unchanged version costs one row read.
///
/// A cached gallery is watched: once it has been quiet for a moment after a change, the body
/// of its new version is built in the background, so the next page load does not pay for the
/// read (~0.2 s at 100k items). Under a steady stream of changes nothing is rebuilt then; a
/// page load that finds the body at an older version has it brought up to date from the last
/// columns kept in memory and what changed since (`GalleryStore.columns(_:updating:)`: the
/// live order and the rows of the changed items, O(changes) rows read), not from a read of the
/// whole gallery (issue 15.2).
///
/// Each body is also compressed once, zstd then gzip, in the background after it is built
/// (issue 15: the first load's transfer), for clients that accept either; until that is done
/// they get it as it is.
final class ColumnsCache: Sendable {
    /// A gallery's body in one of the two forms (`SnapshotColumns.json()` or `.binary()`, which the page reads).
    struct Key: Hashable, Sendable { var gallery: Int64; var binary: Bool }
    private struct Entry { var version: Int64; var name: String; var body: ByteBuffer; var gzip: ByteBuffer?; var zstd: ByteBuffer?; var used: UInt64 }
    private let entries = Mutex<[Key: Entry]>([:])
    private let clock = Atomic<UInt64>(0)
    private let watchers = Mutex<[Int64: (token: UInt64, task: Task<Void, Never>)]>([:])
    /// Builds under way: a request that finds one waits for it instead of reading the gallery
    /// again (at a million items each build holds ~150 MB while it runs).
    private let inflight = Mutex<[Key: Task<(body: ByteBuffer, version: Int64, name: String), any Error>]>([:])
    /// The columns of the latest body built per gallery (either form), from which the next
    /// version's are made without reading the whole gallery.
    private let latest = Mutex<[Int64: SnapshotColumns]>([:])
    /// Bodies built (for tests: concurrent requests share one).
    let builds = Atomic<Int>(0)
    /// Of those, the ones that read the whole gallery from the store (the others were brought up
    /// to date from the columns kept).
    let fullReads = Atomic<Int>(0)
    /// Quiet moments that found a form already built at the gallery's version (by a page load) and left it.
    let quietSkips = Atomic<Int>(0)
    let capacity: Int
    let quiet: Duration
    /// Where the last builds and compressions ran (at most 32): what ("build", "compress"), the
    /// thread's name and its nice value. Tests read it; a slow request can be told from it too.
    let ranOn = Mutex<[(what: String, thread: String, nice: Int32)]>([])

    init(capacity: Int = 4, quiet: Duration = .seconds(1)) { self.capacity = capacity; self.quiet = quiet }

    /// The body at this version and name, and its gzip and zstd forms once made; nil when not cached.
    func body(_ key: Key, version: Int64, name: String) -> (body: ByteBuffer, gzip: ByteBuffer?, zstd: ByteBuffer?)? {
        let now = clock.add(1, ordering: .relaxed).newValue
        return entries.withLock { e in
            guard var entry = e[key], entry.version == version, entry.name == name else { return nil }
            entry.used = now
            e[key] = entry
            return (entry.body, entry.gzip, entry.zstd)
        }
    }

    static func gzip(_ body: ByteBuffer) throws -> ByteBuffer { try ColumnsCompression.gzip(body) }

    /// Compresses a stored body off the request path, zstd first (the faster of the two, and
    /// what browsers take), then gzip; each kept only if the entry is still that version.
    ///
    /// On a thread of its own, not on Swift's cooperative threads (two on a 2-core machine): at
    /// 1M items the two compressions are 1–2 s of CPU in two calls, and a request that needed the
    /// thread one of them held waited for it (a single move waited 167.8 ms once during the
    /// reconnect bench, BENCHMARKS.md, end of session 15). That thread runs at a lower priority
    /// (`background`, nice 10, as ingestion's): nobody waits for a compression (the body goes
    /// out as it is until it is done), so the requests get the cores first (a queue at their
    /// priority, utility's nice 2, competed with them for one of the two cores for 0.7–1.5 s:
    /// BENCHMARKS.md, session 17).
    private func compressLater(_ key: Key, version: Int64, name: String, body: ByteBuffer) {
        Self.background.run { [weak self] in
            func keep(_ change: (inout Entry) -> Void) -> Bool {
                guard let self else { return false }
                return self.entries.withLock { e in
                    guard var entry = e[key], entry.version == version, entry.name == name else { return false }
                    change(&entry)
                    e[key] = entry
                    return true
                }
            }
            self?.noteThread("compress")
            if let zstd = try? ColumnsCompression.zstd(body), !keep({ $0.zstd = zstd }) { return }
            guard let gzip = try? Self.gzip(body) else { return }
            Self.releaseFreedMemory()
            _ = keep { $0.gzip = gzip }
        }
    }

    func store(_ key: Key, version: Int64, name: String, body: ByteBuffer) {
        let now = clock.add(1, ordering: .relaxed).newValue
        let evicted = entries.withLock { e -> [Int64] in
            e[key] = Entry(version: version, name: name, body: body, gzip: nil, zstd: nil, used: now)
            var out: [Int64] = []
            while e.count > capacity, let oldest = e.min(by: { $0.value.used < $1.value.used })?.key {
                e[oldest] = nil
                if !e.keys.contains(where: { $0.gallery == oldest.gallery }) { out.append(oldest.gallery) }
            }
            return out
        }
        for g in evicted {
            watchers.withLock { $0.removeValue(forKey: g) }?.task.cancel()
            _ = latest.withLock { $0.removeValue(forKey: g) }
        }
        compressLater(key, version: version, name: name, body: body)
    }

    /// Where the columns' long synchronous work runs, never on Swift's shared threads that serve
    /// requests (two on a 2-core machine; at a million items bringing the columns up to date and
    /// encoding them is 0.1–0.2 s, zstd ~50 ms, gzip ~1 s). A build a page waits for (a first
    /// visit, a load right after a change) on a thread of its own at the requests' priority;
    /// what nobody waits for — the quiet moment's rebuild, the start's prewarm (before: tasks at
    /// background priority on the shared threads) and the compressions (before: a dispatch
    /// queue at utility priority, nice 2) — at nice 10, as ingestion's work, so the requests get
    /// the cores first: those builds on `rebuilder`, the compressions on `background` (apart, so
    /// that a rebuild a page load may join never waits behind a gzip of ~1 s). Each thread does
    /// one thing at a time (a build holds ~150 MB at 1M while it runs).
    static let builder = WorkerThread(name: "columns-build", nice: nil)
    static let rebuilder = WorkerThread(name: "columns-rebuild", nice: backgroundNice)
    static let background = WorkerThread(name: "columns-bg", nice: backgroundNice)
    static let backgroundNice: Int32 = 10

    /// Reads and caches the gallery's current body in one form; joins a build of it under way.
    /// `background`: nobody waits for it (on `rebuilder`'s thread, see `builder`).
    func build(_ key: Key, store: GalleryStore, background: Bool = false) async throws -> (body: ByteBuffer, version: Int64, name: String) {
        let task = inflight.withLock { running in
            if let task = running[key] { return task }
            let task = Task(executorPreference: background ? Self.rebuilder : Self.builder) { [self] in
                defer { _ = inflight.withLock { $0.removeValue(forKey: key) } }
                return try await read(key, store: store)
            }
            running[key] = task
            return task
        }
        return try await task.value
    }

    private func read(_ key: Key, store: GalleryStore) async throws -> (body: ByteBuffer, version: Int64, name: String) {
        builds.add(1, ordering: .relaxed)
        let (body, version, name) = try await encode(key, store: store)
        noteThread("build")
        Self.releaseFreedMemory()
        self.store(key, version: version, name: name, body: body)
        watch(gallery: key.gallery, since: version, store: store)
        return (body, version, name)
    }

    private func encode(_ key: Key, store: GalleryStore) async throws -> (body: ByteBuffer, version: Int64, name: String) {
        var columns: SnapshotColumns?
        if let previous = latest.withLock({ $0[key.gallery] }) {
            columns = try await store.columns(key.gallery, updating: previous)
        }
        let now: SnapshotColumns
        if let columns { now = columns } else {
            fullReads.add(1, ordering: .relaxed)
            now = try await store.columns(key.gallery)
        }
        latest.withLock { l in
            if (l[key.gallery]?.gallery.version ?? -1) <= now.gallery.version { l[key.gallery] = now }
        }
        return (ByteBuffer(bytes: key.binary ? now.binary() : now.json()), now.gallery.version, now.gallery.name)
    }

    private func noteThread(_ what: String) {
        var nice: Int32 = 0
        #if os(Linux)
        nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        #endif
        let thread = currentThreadName()
        ranOn.withLock { r in
            r.append((what, thread, nice))
            if r.count > 32 { r.removeFirst(r.count - 32) }
        }
    }

    /// A build's columns and encoding buffers (~150 MB at a million items) are freed when it
    /// ends, but glibc keeps freed memory in the process: hand it back to the system, so the
    /// server's resident size stays what it holds (issue 15.5; BENCHMARKS.md "The page at 1,000,000 items").
    /// Called on the columns' own threads only (`builder`, `background`); measured at 1M: 0.3–7 ms
    /// (BENCHMARKS.md, session 17).
    static func releaseFreedMemory() {
        #if os(Linux)
        _ = mallocTrim(0)
        #endif
    }

    /// Whether the body cached for `key` is at this version and name.
    private func has(_ key: Key, version: Int64?, name: String?) -> Bool {
        guard let version, let name else { return false }
        return entries.withLock { e in e[key].map { $0.version == version && $0.name == name } ?? false }
    }

    /// The forms of this gallery's body that are cached (rebuilt after a change).
    private func cachedForms(_ gallery: Int64) -> [Key] {
        entries.withLock { e in e.keys.filter { $0.gallery == gallery } }
    }

    /// At start: the bodies of the most active galleries (highest versions), built in the
    /// background, so the first page load after a start does not pay the read either.
    func prewarm(store: GalleryStore) async {
        guard let galleries = try? await store.listGalleries() else { return }
        for g in galleries.sorted(by: { $0.version > $1.version }).prefix(capacity) {
            if Task.isCancelled { return }
            _ = try? await build(Key(gallery: g.id, binary: true), store: store, background: true) // the page's form
        }
    }

    /// Follows the gallery's live stream; after each burst of changes, once quiet, rebuilds.
    ///
    /// One wait per quiet moment, not one per change: each change only notes when it came, and
    /// the one waiting task sleeps again until `quiet` after the last. (A task and a timer per
    /// change, each cancelled by the next, was ~4 % of the server's CPU under 50 clients moving,
    /// with a wake-up of the dispatch timer thread per move: BENCHMARKS.md, session 22.)
    private func watch(gallery: Int64, since version: Int64, store: GalleryStore) {
        let quiet = self.quiet
        let token = clock.add(1, ordering: .relaxed).newValue
        watchers.withLock { w in
            guard w[gallery] == nil else { return }
            w[gallery] = (token, Task { [weak self] in
                guard let (stream, cancel) = try? await store.subscribe(gallery: gallery, since: version) else { return }
                let changes = LastChange()
                var rebuild: Task<Void, Never>?
                for await event in stream {
                    if case .deleted = event { break }
                    guard changes.noteStartsWait() else { continue }
                    rebuild = Task { [weak self] in
                        var deadline = ContinuousClock.now + quiet
                        while true {
                            try? await Task.sleep(until: deadline, clock: .continuous)
                            if Task.isCancelled { return }
                            guard let later = changes.quietUntil(quiet) else { break }
                            deadline = later
                        }
                        guard let self else { return }
                        // A page load may have built this version meanwhile: not built (and compressed) again.
                        let now = try? await store.gallery(gallery)
                        for key in self.cachedForms(gallery) {
                            if self.has(key, version: now?.version, name: now?.name) { self.quietSkips.add(1, ordering: .relaxed); continue }
                            _ = try? await self.build(key, store: store, background: true)
                        }
                    }
                }
                rebuild?.cancel()
                cancel()
                self?.watchers.withLock { w in if w[gallery]?.token == token { w[gallery] = nil } }
            })
        }
    }

    /// When a watched gallery last changed, and whether a wait for its quiet moment is under way.
    private final class LastChange: Sendable {
        private let state = Mutex<(last: ContinuousClock.Instant, waiting: Bool)>((ContinuousClock.now, false))

        /// Notes a change now; true when no wait is under way (the caller starts one).
        func noteStartsWait() -> Bool {
            state.withLock { s in
                s.last = ContinuousClock.now
                if s.waiting { return false }
                s.waiting = true
                return true
            }
        }

        /// Nil when `quiet` has passed since the last change (the wait ends); otherwise when it will have.
        func quietUntil(_ quiet: Duration) -> ContinuousClock.Instant? {
            state.withLock { s in
                let due = s.last + quiet
                if due <= ContinuousClock.now { s.waiting = false; return nil }
                return due
            }
        }
    }

    /// A validator for the body at this version and name (FNV-1a of the name: stable across restarts).
    static func etag(gallery: Int64, version: Int64, name: String, binary: Bool = false) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return "\"g\(gallery)-v\(version)-\(String(h, radix: 36))\(binary ? "-b" : "")\""
    }
}
