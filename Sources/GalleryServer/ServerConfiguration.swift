import Foundation
import GalleryStore
import HummingbirdCore
import NIOCore

/// Everything `gallery serve` can be told; the defaults are what a newcomer gets.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// SQLite file and content-addressed images.
    public var dataFolder = URL(fileURLWithPath: "gallery-data")
    /// `postgres://…`: the rows in PostgreSQL (images stay in `dataFolder`); nil: SQLite in `dataFolder`.
    public var databaseURL: String?
    /// The page and its JavaScript, served at `/` (issue 5).
    public var webFolder = URL(fileURLWithPath: "Web")
    /// Served at `/engine.wasm`.
    public var wasmPath = URL(fileURLWithPath: ".build-wasm/engine.wasm")
    /// Off by default: dropped URLs to loopback and private networks are refused (SSRF). Tests
    /// and LAN setups turn it on; link-local and cloud metadata addresses stay refused regardless.
    public var allowPrivateAddresses = false
    /// Largest upload request (all files) and largest single file.
    public var maxUploadBytes = 64 << 20
    /// Largest inflated size of an imported archive in all (each image is also held to `maxUploadBytes`).
    public var maxImportInflatedBytes = 8 << 30
    /// Largest image fetched for a dropped URL.
    public var maxFetchBytes = 32 << 20
    /// Whole fetch, redirects included.
    public var fetchTimeout: Duration = .seconds(20)
    /// A fetch whose server sends nothing for this long fails ("sent nothing for N s") before
    /// `fetchTimeout`; a slow server that keeps sending is held only to `fetchTimeout`.
    public var fetchSilence: Duration = .seconds(10)
    /// Decompression-bomb guard: width × height above this fails the item.
    public var maxPixels = 100_000_000
    /// Largest JSON request body.
    public var maxJSONBytes = 4 << 20
    /// A connection that has not sent a whole request head or body part for this long, and has
    /// no answer under way, is closed: kept-alive connections left idle, and clients that open
    /// a request and never finish its head (slowloris: without it they held their sockets
    /// forever, and at the open-file limit new clients hung; the attacker review of session 27).
    /// An answer being written (a live stream, a download) is never cut.
    public var idleTimeout: Duration = .seconds(60)
    /// Items one batch may name, over all its operations; more is refused with 413 naming this
    /// limit (`maxItems`), and the page sends a bigger change in parts (Web/js/parts.js). Every
    /// other write to the gallery waits while a batch runs: a move of 1,000 items in a 100k
    /// gallery holds the writer 15–35 ms, of 100,000 items 0.3–0.4 s on SQLite and 1–3 s on
    /// PostgreSQL (BENCHMARKS.md "Limits"), so the limit keeps the next request within 50 ms.
    /// A section deleted names its live items (they go to the trash: at 1M on PostgreSQL a
    /// section of 10,000 held the writer ~70 ms; the page deletes a bigger one in parts).
    public var maxBatchItems = 1_000
    /// Up to this many items in the gallery a batch may name `maxBatchItems`; beyond, the limit
    /// shrinks in proportion (at 1M items: 500, never under 100 or `maxBatchItems` if smaller).
    /// A batch's time on the writer grows with the gallery as well as with its items — the engine
    /// renumbers the tails of the sections it touches, ~10,000 items each at 1M in 100 sections:
    /// a 1,000-item move spread over them held the writer 49–76 ms at 1M on a calm machine, 500
    /// items 39 ms (BENCHMARKS.md "Batch limit scaled with the gallery", issue 15's limits).
    public var batchLimitFullUpTo = 500_000

    /// The most items a batch may name in a gallery of `itemCount` items (see `batchLimitFullUpTo`).
    public func batchLimit(itemCount: Int) -> Int {
        guard itemCount > batchLimitFullUpTo, batchLimitFullUpTo > 0 else { return maxBatchItems }
        guard itemCount < Int.max else { return min(maxBatchItems, 100) }
        let scaled = Int((Double(maxBatchItems) * Double(batchLimitFullUpTo) / Double(itemCount)).rounded(.down))
        return max(min(maxBatchItems, 100), scaled)
    }
    /// `GET …/changes?since=V` with V outside the catch-up window answers the full nested snapshot
    /// only up to this many items; a bigger gallery gets `{"reload": {"version": N}}` (read its
    /// columns), as the live stream's `reload` event — a 1M gallery's snapshot is ~500 MB of JSON.
    public var maxSnapshotFallbackItems = 10_000
    /// `GET /api/galleries/:g` (the nested snapshot) answers up to this many items; a bigger
    /// gallery gets 422 pointing to its columns.
    public var maxNestedSnapshotItems = 100_000
    /// CPU priority (nice, 0–19) of ingestion's decoding and thumbnails: above the threads that
    /// answer requests, so a move stays quick while photos are ingested. 0 turns it off.
    public var ingestNice: Int32 = 10
    /// Fetches and thumbnails running at once.
    public var ingestWorkers = 4
    /// This instance's name in ingestion leases (docs/storage.md "Several instances"); nil: the
    /// host name and port. A restarted instance with the same name takes its dead predecessor's
    /// leases back at once instead of waiting for them to run out.
    public var instanceName: String?
    /// How long (seconds) a claimed pending item stays this instance's without a renewal. The
    /// holder renews every third of it while the work runs, so only an instance that died (or
    /// lost the database that long) loses its items; they finish elsewhere after at most this
    /// plus `ingestPoll`. 30 s: a few missed renewals (a database failover, a stalled machine)
    /// do not hand a live job to a second instance, and a killed instance's uploads wait half a
    /// minute, not a restart.
    public var ingestLease: Double = 30
    /// How often (seconds) an instance with a free worker looks for pending items nobody holds
    /// (a killed instance's, an item whose storage failed and waits to be tried again). One
    /// indexed query per idle instance per tick; its own uploads start at once, not on a tick.
    public var ingestPoll: Double = 5
    /// A pause after each ingestion job claims its item, before the fetch or thumbnails (0: none).
    /// For tests and demonstrations of several instances (`--ingest-delay-ms`): it keeps items
    /// pending and leased long enough to kill the instance that holds them.
    public var ingestDelay: Duration = .zero
    /// Create the sample gallery when the store has no gallery at all.
    public var createSampleGallery = true
    /// Where SQLite's write-ahead log is copied back: off the writer (the default) or, as SQLite does
    /// by itself, by the commit that fills it (kept for `gallery-bench move`'s same-run baseline).
    public var walCheckpoints: WALCheckpoints = .background
    /// At start, build the page's columns body of the most active galleries in the background.
    public var prewarmColumns = true
    /// How long a gallery stays unchanged before the cached columns body is brought to its new version.
    public var columnsQuiet: Duration = .seconds(1)

    /// The address people use (behind a proxy: its https URL). Its host is accepted in `Host`
    /// and `Origin`; https makes the session cookie `Secure`.
    public var publicURL: URL?
    /// Peers (IP addresses) that are this server's own reverse proxies: for a request from one of
    /// them the client's address is the last address in `X-Forwarded-For` that is not a trusted
    /// proxy (nginx's `$proxy_add_x_forwarded_for` appends the peer it saw). Empty: the TCP peer is
    /// the client, and `X-Forwarded-For` is ignored (anyone can send it). Sign-in throttling counts
    /// per client address, so behind a proxy without this every client shares the proxy's count.
    public var trustedProxies: Set<String> = []
    /// A session unused this long (seconds) is over.
    public var sessionIdleLifetime: Double = 7 * 24 * 3600
    /// A session ends this long (seconds) after sign-in, used or not.
    public var sessionAbsoluteLifetime: Double = 30 * 24 * 3600
    /// How often an open live stream re-checks its caller's access by itself (changes made in
    /// this process are seen at once; this finds those made elsewhere: the CLI, another instance).
    public var streamAccessRecheck: Duration = .seconds(1)

    public init() {}
}

extension ServerConfiguration {
    /// HTTP/1.1 with `idleTimeout`.
    var http1Server: HTTPServerBuilder {
        let c = idleTimeout.components
        return .http1(configuration: .init(idleTimeout: .nanoseconds(c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000)))
    }
}
