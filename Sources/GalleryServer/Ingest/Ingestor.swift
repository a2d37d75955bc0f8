import Foundation
import AsyncHTTPClient
import Logging
import NIOPosix
import ServiceLifecycle
import Synchronization
import GalleryCore
import GalleryStore
import Imaging

/// Background ingestion: fetch a dropped URL, or take an uploaded file, then probe it, make the
/// two thumbnails once, and mark the item ready — or failed with the reason (F16, F19).
///
/// Several instances share the work through the database (docs/storage.md, "Several
/// instances"): a job first claims its item's lease (`GalleryStore.claim`), renews it every
/// third of `ingestLease` while it runs, and its finish counts only while it still holds it.
/// A job this instance queued itself (an upload, a drop, a copy) starts at once; an instance
/// with a free worker also claims, every `ingestPoll`, pending items nobody holds — a killed
/// instance's once their lease ran out, so they finish on another instance.
/// Runs as a service: on start it takes back the leases of its own earlier run (SQLite: all of
/// them) and claims what is pending; on shutdown it stops taking jobs, cancels those in flight
/// and lets go of their leases (their items stay pending for the next claim, here or on another
/// instance), and closes the live streams so the HTTP server can drain.
public final class Ingestor: Service, Sendable {
    enum Job: Sendable {
        /// `claimed`: the lease is taken already (the poll claimed it); otherwise the job claims it first.
        case fetch(item: Int64, url: String, claimed: Bool = false)
        case process(item: Int64, hash: String, claimed: Bool = false)

        var item: Int64 {
            switch self {
            case let .fetch(item, _, _), let .process(item, _, _): return item
            }
        }
        var claimed: Bool {
            switch self {
            case let .fetch(_, _, c), let .process(_, _, c): return c
            }
        }
    }

    let store: GalleryStore
    let configuration: ServerConfiguration
    let logger: Logger
    let urlGuard: URLGuard
    /// Set while the service runs: a server value that never runs (a test, the CLI's import)
    /// fetches nothing. Each fetch hop makes its own client, pinned to the checked address (ImageFetcher).
    private let clientConfiguration = Mutex<HTTPClient.Configuration?>(nil)
    /// URLs being fetched: a second drop of the same URL (or a copy of its placeholder) waits
    /// for the same fetch instead of starting another.
    private let fetching = Mutex<Set<String>>([])
    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    /// This instance's name (`--instance`; default host:port): a restart under the same name takes
    /// its predecessor's leases back at start.
    public let instanceName: String
    /// Who holds this process's leases: the instance name, "/", the process id and a random part.
    public let leaseOwner: String
    /// Items this process holds a lease on and works on (or is about to): renewed every third of the lease.
    private let held = Mutex<Set<Int64>>([])
    /// Jobs queued or running: the poll claims more only while it is under `ingestWorkers`.
    private let inFlight = Atomic<Int>(0)

    public init(store: GalleryStore, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        urlGuard = URLGuard(allowPrivate: configuration.allowPrivateAddresses)
        Self.backgroundNiceValue.store(configuration.ingestNice, ordering: .relaxed)
        (jobs, continuation) = AsyncStream<Job>.makeStream()
        instanceName = configuration.instanceName ?? "\(Self.hostName()):\(configuration.port)"
        leaseOwner = "\(instanceName)/\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    }

    var lease: Double { configuration.ingestLease }

    /// gethostname(2): the machine's name as set, with no name lookup (which may block or fail).
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty ? "localhost" : name.replacingOccurrences(of: "/", with: "-")
    }

    /// Queues a job; false when it was not queued (its URL is being fetched here already, or the
    /// service stopped).
    @discardableResult
    func enqueue(_ job: Job) -> Bool {
        if case let .fetch(item, url, claimed) = job {
            let first = fetching.withLock { $0.insert(url).inserted }
            guard first else {
                // This process fetches the URL already; that fetch settles this item too. A lease
                // the poll took on it goes back, so that the settle sees the item as free.
                if claimed { Task { await self.letGo(item) } }
                return false
            }
        }
        inFlight.add(1, ordering: .relaxed)
        if case .enqueued = continuation.yield(job) {
            GalleryMetrics.ingestQueue.increment()
            return true
        }
        inFlight.subtract(1, ordering: .relaxed)
        if case let .fetch(_, url, _) = job { _ = fetching.withLock { $0.remove(url) } }
        return false
    }

    /// Lets go of a lease this process took and will not work on (the item is claimable at once).
    func letGo(_ item: Int64) async {
        _ = held.withLock { $0.remove(item) }
        do { try await store.releaseLeases(owner: leaseOwner, items: [item]) } catch {
            logger.warning("could not let go of an ingestion lease (it runs out by itself)", metadata: ["item": "\(item)", "error": "\(error)"])
        }
    }

    public func run() async throws {
        var config = HTTPClient.Configuration(redirectConfiguration: .disallow)
        config.timeout = .init(connect: .seconds(5), read: .init(configuration.fetchSilence))
        clientConfiguration.withLock { $0 = config }
        defer { clientConfiguration.withLock { $0 = nil } }
        // A killed earlier run of this instance left leases nobody renews: its successor takes them
        // back now. SQLite is one server process per data folder: every lease is from an earlier run.
        let retaken = try await store.releaseLeasesOfEarlierRuns(instancePrefix: instanceName + "/", all: store.database.kind == "sqlite")
        if retaken > 0 { logger.info("resuming interrupted ingestion", metadata: ["items": "\(retaken)"]) }
        let reprobe = Task { await self.reprobeOrientation() }
        let poll = Task { await self.claimLoop() }
        let renew = Task { await self.renewLoop() }
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await job in jobs {
                    if running >= configuration.ingestWorkers { await group.next(); running -= 1 }
                    group.addTask {
                        await self.handle(job)
                        self.inFlight.subtract(1, ordering: .relaxed)
                        GalleryMetrics.ingestQueue.decrement()
                    }
                    running += 1
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.continuation.finish()
            self.store.closeAllStreams()
        }
        reprobe.cancel(); poll.cancel(); renew.cancel()
        _ = await (poll.value, renew.value)
        // What was cancelled stays pending: another instance (or this one's next start) claims it
        // at its next look instead of after the lease.
        do {
            let left = try await store.releaseLeases(owner: leaseOwner)
            if left > 0 { logger.info("left pending items to the next claim", metadata: ["items": "\(left)"]) }
        } catch {
            logger.warning("could not let go of ingestion leases (they run out by themselves)", metadata: ["error": "\(error)"])
        }
        logger.info("ingestion stopped")
    }

    /// Every `ingestPoll` while a worker is free: claims pending items nobody holds (a killed
    /// instance's once their lease ran out, items waiting to be tried again, anything left
    /// pending) up to the free workers, and queues them. After a full claim it looks again as
    /// soon as a worker is free (a backlog is worked through at once, not one batch per tick).
    func claimLoop() async {
        while !Task.isCancelled {
            let free = configuration.ingestWorkers - inFlight.load(ordering: .relaxed)
            var full = false
            if free > 0 {
                do {
                    // A read first: an idle instance takes no write transaction (SQLite: the writer's turn) per tick.
                    if try await store.hasClaimable() {
                        let claimed = try await store.claimPending(owner: leaseOwner, lease: lease, limit: free)
                        var queued = 0
                        for item in claimed where await take(item) { queued += 1 }
                        // More may wait: look again when a worker is free. (Items given back — their
                        // URL is being fetched here — do not count: no quick second look for them.)
                        full = queued == free
                    }
                } catch {
                    logger.warning("could not look for pending items (tried again)", metadata: ["error": "\(error)"])
                }
            }
            if full {
                while !Task.isCancelled && inFlight.load(ordering: .relaxed) >= configuration.ingestWorkers {
                    try? await Task.sleep(for: .milliseconds(50))
                }
            } else {
                try? await Task.sleep(for: .seconds(configuration.ingestPoll))
            }
        }
    }

    /// A claimed item becomes a job: its stored file thumbnailed, its URL fetched again, or — with
    /// neither — failed (an upload cut off before its file was stored).
    /// True when it became a job (or was settled) here.
    func take(_ item: ClaimedItem) async -> Bool {
        // Our own job still runs (its lease ran out while the database was away and came back to us).
        guard held.withLock({ $0.insert(item.id).inserted }) else { return false }
        if let hash = item.fileHash, store.files.exists(hash, "original") {
            return enqueue(.process(item: item.id, hash: hash, claimed: true))
        } else if let url = item.sourceURL {
            return enqueue(.fetch(item: item.id, url: url, claimed: true))
        } else {
            await finish(item.id, .failed(reason: "interrupted before the file was stored"), lease: .held(by: leaseOwner))
            _ = held.withLock { $0.remove(item.id) }
            return true
        }
    }

    /// Every third of the lease: pushes the leases of the items this process works on.
    func renewLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(lease / 3))
            let items = held.withLock { Array($0) }
            guard !items.isEmpty, !Task.isCancelled else { continue }
            do { try await store.renewLeases(owner: leaseOwner, items: items, lease: lease) } catch {
                logger.warning("could not renew ingestion leases (tried again; past the lease another instance may take the items)",
                               metadata: ["items": "\(items.count)", "error": "\(error)"])
            }
        }
    }

    /// The start of a job: its lease (taken now unless the poll took it) and the configured pause.
    /// False: another instance has the item, it is no longer pending, or the stop came first.
    func hold(_ job: Job) async -> Bool {
        if !job.claimed {
            do {
                guard try await store.claim(item: job.item, owner: leaseOwner, lease: lease) != nil else { return false }
            } catch {
                logger.warning("could not claim an item (the next look takes it)", metadata: ["item": "\(job.item)", "error": "\(error)"])
                return false
            }
            held.withLock { _ = $0.insert(job.item) }
        }
        if configuration.ingestDelay > .zero {
            try? await Task.sleep(for: configuration.ingestDelay)
        }
        return !Task.isCancelled
    }

    /// The images folder could not take a file: the item stays pending, free for a claim after
    /// `ingestPoll` (tried again then, here or elsewhere), instead of failing for good.
    func retryLater(_ item: Int64, _ error: ImageFiles.StorageError) async {
        logger.error("ingestion could not store a file; the item stays pending and is tried again", metadata: ["item": "\(item)", "error": "\(error)"])
        do { try await store.releaseLeases(owner: leaseOwner, items: [item], retryAfter: configuration.ingestPoll) } catch {
            logger.warning("could not let go of an ingestion lease (it runs out by itself)", metadata: ["item": "\(item)", "error": "\(error)"])
        }
    }

    /// After an upgrade (migration "v4 maintenance"): items ingested before EXIF orientation was
    /// read carry their stored size, so a portrait phone photo is laid out landscape. Re-reads
    /// every ready item's size from its original's header and corrects what differs, one version
    /// per gallery and 500 items (open windows re-lay out), beside the other jobs; then marks the
    /// task done. Interrupted, it starts over at the next start (an unchanged size writes nothing).
    func reprobeOrientation() async {
        let task = "reprobe-orientation"
        do {
            guard try await store.maintenancePending(task) else { return }
            var after: Int64 = 0, corrected = 0
            while !Task.isCancelled {
                let items = try await store.readyItems(after: after, limit: 500)
                guard let last = items.last else { break }
                after = last.id
                var byGallery: [Int64: [StoreWrite]] = [:]
                for item in items {
                    let path = store.files.url(item.hash, "original").path
                    guard let info = try? await Self.inBackground({ try ImageProbe.probe(file: path) }) else { continue }
                    if info.width != item.width || info.height != item.height {
                        byGallery[item.gallery, default: []].append(.resize(item: item.id, width: info.width, height: info.height))
                    }
                }
                for (gallery, ops) in byGallery.sorted(by: { $0.key < $1.key }) {
                    _ = try await store.apply(gallery: gallery, ops, payload: ["op": "reprobe", "items": "\(ops.count)"])
                    corrected += ops.count
                }
            }
            guard !Task.isCancelled else { return }
            try await store.maintenanceDone(task)
            logger.info("sizes re-read for EXIF orientation", metadata: ["corrected": "\(corrected)"])
        } catch is CancellationError {
            logger.debug("re-reading sizes for EXIF orientation stopped by the shutdown (goes on at the next start)")
        } catch {
            logger.error("re-reading sizes for EXIF orientation failed (tried again at the next start)", metadata: ["error": "\(error)"])
        }
    }

    /// Thumbnails items whose originals are stored, `ingestWorkers` at a time, as they come, and
    /// returns when the sequence has ended and all are settled (`gallery import` without a server).
    /// `done` is called as each one ends.
    public func processStored<Items: AsyncSequence & Sendable>(_ items: Items, done: @escaping @Sendable (ItemJSON, IngestOutcome) -> Void = { _, _ in })
        async where Items.Element == ItemJSON, Items.Failure == Never {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await item in items {
                guard let hash = item.fileHash else { continue }
                if running >= configuration.ingestWorkers { await group.next(); running -= 1 }
                group.addTask {
                    let outcome: IngestOutcome
                    do {
                        outcome = try await Self.inBackground { [self] in try thumbnail(stored: hash) }
                    } catch let e as ImageFiles.StorageError {
                        outcome = .failed(reason: "could not write thumbnails: \(e)")
                    } catch {
                        outcome = .failed(reason: "stored file unreadable: \(error)")
                    }
                    await self.finish(item.id, outcome)
                    done(item, outcome)
                }
                running += 1
            }
        }
    }

    func handle(_ job: Job) async {
        switch job {
        case let .fetch(item, url, _):
            // On every early return the URL is released; a finished fetch releases it in finish(url:).
            var released = false
            defer { if !released { _ = fetching.withLock { $0.remove(url) } } }
            guard await hold(job) else { return }
            defer { _ = held.withLock { $0.remove(item) } }
            var outcome: IngestOutcome
            do {
                guard let clientConfiguration = clientConfiguration.withLock({ $0 }) else { return }
                let fetcher = ImageFetcher(configuration: clientConfiguration, urlGuard: urlGuard, maxBytes: configuration.maxFetchBytes,
                                           timeout: configuration.fetchTimeout, silence: configuration.fetchSilence)
                let checked = try urlGuard.checkSyntax(url)
                let bytes = try await fetcher.fetch(checked)
                if Task.isCancelled { return }
                outcome = try await Self.inBackground { [self] in
                    let hash = try store.files.storeOriginal(bytes)
                    return try thumbnail(hash: hash, bytes: bytes)
                }
            } catch let e as ImageFiles.StorageError {
                await retryLater(item, e)
                return
            } catch let r as URLGuard.Refusal {
                outcome = .failed(reason: r.reason)
            } catch let f as ImageFetcher.Failure {
                // Cancelled by shutdown: leave it pending, the next claim fetches again.
                if Task.isCancelled { return }
                outcome = .failed(reason: f.reason)
            } catch {
                outcome = .failed(reason: "could not store the image: \(error)")
            }
            released = true
            await finish(url: url, item: item, outcome)
        case let .process(item, hash, _):
            guard await hold(job) else { return }
            defer { _ = held.withLock { $0.remove(item) } }
            do {
                let outcome = try await Self.inBackground { [self] in try thumbnail(stored: hash) }
                await finish(item, outcome, lease: .held(by: leaseOwner))
            } catch let e as ImageFiles.StorageError {
                await retryLater(item, e)
            } catch {
                await finish(item, .failed(reason: "stored file unreadable: \(error)"), lease: .held(by: leaseOwner))
            }
        }
    }

    /// Decoding, scaling and file writes block their thread for tens of milliseconds: they run on
    /// NIO's blocking-I/O pool, not on the cooperative threads that serve requests.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// Ingestion's decoding and scaling (nobody waits on a request for it) run on threads of their
    /// own at a lower CPU priority (nice 10): on two cores four thumbnail workers otherwise take
    /// the CPU from the threads that answer requests, and a move or a list read waits behind
    /// them (BENCHMARKS.md, "Limits": 1,000 photos into a 1M gallery). libvips' own worker
    /// threads, started from these, inherit it. Thumbnails made for a request that waits
    /// (`ImageRoutes`) keep `offload`.
    static func inBackground<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await backgroundPool.runIfActive {
            lowerThisThreadsPriority()
            return try body()
        }
    }

    static let backgroundPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        pool.start()
        return pool
    }()

    /// Set from `ServerConfiguration.ingestNice` when a server starts (0: no lower priority, the
    /// benchmark's baseline).
    static let backgroundNiceValue = Atomic<Int32>(10)
    static var backgroundNice: Int32 { backgroundNiceValue.load(ordering: .relaxed) }

    /// Linux: nice is a property of each thread, and `PRIO_PROCESS` with id 0 names the calling
    /// thread only (setpriority(2), "Bugs"); raising it needs no privilege.
    static func lowerThisThreadsPriority() {
        #if os(Linux)
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let nice = backgroundNice
        if getpriority(which, 0) != nice { _ = setpriority(which, 0, nice) }
        #endif
    }

    /// Throws `ImageFiles.StorageError` when the images folder cannot take the thumbnails (the
    /// item is tried again later); any other trouble is the item's outcome.
    func thumbnail(hash: String, bytes: [UInt8]) throws -> IngestOutcome {
        try outcome(hash) { try Thumbnails.ensure(hash: hash, bytes: bytes, files: store.files, limits: ImageLimits(maxPixels: configuration.maxPixels)) }
    }

    /// For an original already in the data folder (uploads, imports), read through a mapping.
    func thumbnail(stored hash: String) throws -> IngestOutcome {
        try outcome(hash) { try Thumbnails.ensure(stored: hash, files: store.files, limits: ImageLimits(maxPixels: configuration.maxPixels)) }
    }

    private func outcome(_ hash: String, _ make: () throws -> ImageInfo) throws -> IngestOutcome {
        do {
            let info = try make()
            return .ready(hash: hash, width: info.width, height: info.height)
        } catch let e as ImageFiles.StorageError {
            throw e
        } catch let e as ImagingError {
            return .failed(reason: e.reason)
        } catch let e as Thumbnails.Unreadable {
            return .failed(reason: "stored file unreadable: \(e.error)")
        } catch {
            return .failed(reason: "could not write thumbnails: \(error)")
        }
    }

    /// Settles every item waiting for this URL, in every gallery (the dropped item and its copies)
    /// that this process holds or nobody does — not those another instance is fetching itself.
    func finish(url: String, item: Int64, _ outcome: IngestOutcome) async {
        do {
            try await settle(url, outcome)
            // A placeholder committed while that ran skipped its own fetch (the URL was in flight):
            // release the URL, then settle once more; anything later starts a fetch of its own.
            _ = fetching.withLock { $0.remove(url) }
            try await settle(url, outcome)
            log(item, outcome)
        } catch {
            logger.error("could not record ingestion result", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }

    private func settle(_ url: String, _ outcome: IngestOutcome) async throws {
        let lease = LeaseCondition.heldOrFree(by: leaseOwner)
        for gallery in try await store.galleriesWaiting(for: url, lease: lease) {
            _ = try await store.apply(gallery: gallery, [.finishURL(url, outcome, lease: lease)], payload: FinishPayload(url: url, outcome: outcome))
        }
    }

    func log(_ item: Int64, _ outcome: IngestOutcome) {
        switch outcome {
        case .ready: logger.info("item ready", metadata: ["item": "\(item)"])
        case let .failed(reason): logger.notice("item failed", metadata: ["item": "\(item)", "reason": "\(reason)"])
        }
    }

    /// Settles one item — with `.held`, only while this process still holds its lease (checked
    /// first so that a lost lease writes no empty version, and again in the UPDATE itself).
    func finish(_ item: Int64, _ outcome: IngestOutcome, lease: LeaseCondition = .none) async {
        do {
            let gallery = try await store.galleryOf(item: item)
            if lease != .none, try await !store.maySettle(item: item, lease) {
                logger.notice("an item's lease was taken over or it was settled elsewhere: this result is dropped", metadata: ["item": "\(item)"])
                return
            }
            _ = try await store.apply(gallery: gallery, [.finish(item: item, outcome, lease: lease)], payload: FinishPayload(item: item, outcome: outcome))
            log(item, outcome)
        } catch StoreError.itemNotFound {
            // Purged while it loaded: nothing to mark.
        } catch {
            logger.error("could not record ingestion result", metadata: ["item": "\(item)", "error": "\(error)"])
        }
    }
}

struct FinishPayload: Encodable, Sendable {
    var op = "finish"
    var item: Int64?
    var url: String?
    var state: String
    var reason: String?
    init(item: Int64? = nil, url: String? = nil, outcome: IngestOutcome) {
        self.item = item
        self.url = url
        switch outcome {
        case .ready: state = "ready"
        case let .failed(r): state = "failed"; reason = r
        }
    }
}

/// Thumbnails are made once per image hash and kept beside the original.
///
/// Ingestion makes what the grid needs — the size as displayed, the 400 px grid thumbnail and
/// the EXIF fields — from one decode at the grid's scale (shrink-on-load). The 1600 px detail
/// image costs about twice that again (a decode at half scale) and most photos of a big import
/// are never opened, so it is made the first time it is asked for (`detail`) and kept.
enum Thumbnails {
    static func ensure(hash: String, bytes: [UInt8], files: ImageFiles, limits: ImageLimits) throws -> ImageInfo {
        try bytes.withUnsafeBytes { try ensure(hash: hash, raw: $0, files: files, limits: limits) }
    }

    /// The same for a stored original, read through a mapping of its file (no copy of it).
    struct Unreadable: Error { var error: Error }

    static func ensure(stored hash: String, files: ImageFiles, limits: ImageLimits) throws -> ImageInfo {
        let original: Data
        do { original = try Data(contentsOf: files.url(hash, "original"), options: .alwaysMapped) } catch { throw Unreadable(error: error) }
        return try original.withUnsafeBytes { try ensure(hash: hash, raw: $0, files: files, limits: limits) }
    }

    static func ensure(hash: String, raw: UnsafeRawBufferPointer, files: ImageFiles, limits: ImageLimits) throws -> ImageInfo {
        let info = try ImageProbe.probe(raw, limits: limits)
        if !files.exists(hash, "grid.jpg") {
            try files.write(try Thumbnailer.jpeg(from: raw, size: .grid), hash, "grid.jpg")
        }
        // The photo's EXIF (date, camera, exposure, location) beside its thumbnails, for the detail view.
        if !files.exists(hash, "meta.json") {
            try files.write(Array(try JSONIO.encoder.encode(PhotoMetadata.read(raw))), hash, "meta.json")
        }
        return info
    }

    /// The detail image of a stored original, made now if it was not yet (false: no original).
    static func detail(hash: String, files: ImageFiles, limits: ImageLimits) throws -> Bool {
        if files.exists(hash, "detail.jpg") { return true }
        guard files.exists(hash, "original") else { return false }
        let bytes = try files.read(hash, "original")
        _ = try ImageProbe.probe(bytes, limits: limits)   // the same guard as ingestion (pixel bombs)
        try files.write(try Thumbnailer.jpeg(from: bytes, size: .detail), hash, "detail.jpg")
        return true
    }
}
