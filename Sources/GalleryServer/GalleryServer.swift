import Foundation
import Hummingbird
import Logging
import GalleryStore
import NIOPosix
import ServiceLifecycle

/// The gallery server assembled in one place: the store, background ingestion, the JSON API
/// under `/api`, the live streams, `/engine.wasm` and the page's static files at `/`.
///
///     let server = try await GalleryServer(configuration: ServerConfiguration(), logger: logger)
///     try await server.application().runService()
public struct GalleryServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: GalleryStore
    public let ingestor: Ingestor
    public let logger: Logger
    /// Identities, roles and the end of access (B8).
    public let access: AccessControl
    let columnsCache: ColumnsCache
    /// Long catch-ups' text, shared by the windows that ask for the same one at once.
    let catchUpBodies = CatchUpBodies()
    /// Tells open gallery-list streams that the list changed; ends them when the server stops.
    public let galleryList = GalleryListSignal()

    public init(configuration: ServerConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        columnsCache = ColumnsCache(quiet: configuration.columnsQuiet)
        store = try await GalleryStore.open(folder: configuration.dataFolder, databaseURL: configuration.databaseURL,
                                            checkpoints: configuration.walCheckpoints)
        ingestor = Ingestor(store: store, configuration: configuration, logger: logger)
        access = AccessControl(store: store, configuration: configuration, deviceKey: try await store.serverKey(DeviceCookies.keyName))
        // PostgreSQL: several instances may share the database; each follows the others' versions,
        // and the list and access changes one makes wake the others' streams (docs/storage.md).
        galleryList.relay { [weak store] in store?.tellOtherInstances(.galleryList) }
        // The store holds these closures: they hold it (and `access`, which holds it) weakly, or the
        // store would outlive the server, its listening connection open (tests make many servers).
        store.startFollowing { [galleryList, weak access] signal in
            switch signal {
            case .galleryList: galleryList.changedElsewhere()
            case .access: access?.accessChangedElsewhere()
            }
        }
        // Once per database: two instances starting at once on an empty one make one sample
        // (the first to claim it; the other goes on without). A database whose galleries were all
        // deleted after its sample does not get a new one.
        if configuration.createSampleGallery, try await store.listGalleries().isEmpty,
           try await store.claimOnce("sample-gallery", by: ingestor.leaseOwner) {
            let g = try await SampleGallery.create(in: store, maxPixels: configuration.maxPixels)
            logger.info("created the sample gallery", metadata: ["gallery": "\(g.id)", "items": "\(g.itemCount)"])
        }
        // Galleries without an owner (the sample, an offline import) go to the first admin.
        try await store.adoptOwnerlessGalleries()
        // Galleries deleted while a server was stopping still have rows to remove (in parts, in the background).
        store.startPurge()
        _ = try await NIOThreadPool.singleton.runIfActive { Secrets.decoyHash }
        if configuration.prewarmColumns {
            Task.detached(priority: .background) { [columnsCache, store] in await columnsCache.prewarm(store: store) }
        }
    }

    /// The address of the first-account form while no account exists (printed at start).
    public func setupLink() async throws -> String? {
        guard let token = try await access.prepareSetup() else { return nil }
        let base = configuration.publicURL?.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            ?? "http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(configuration.port)"
        return "\(base)/setup#\(token)"
    }

    public func router() -> Router<GalleryRequestContext> {
        // HEAD wherever GET is (a monitor's `HEAD /healthz`; was 404): GET's handler with the body dropped.
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        GalleryMetrics.start() // swift-metrics goes to Prometheus before the first metric is made
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorDurationMiddleware()) // refusals' durations, which MetricsMiddleware leaves out
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: RequestGuard(configuration: configuration))
        router.add(middleware: APIErrorMiddleware())
        router.add(middleware: AccessMiddleware(access: access))
        let api = router.group("api")
        SessionRoutes(server: self).register(api)
        UserRoutes(server: self).register(api)
        ShareRoutes(server: self).register(api)
        DownloadRoutes(server: self).register(api)
        GalleryListRoutes(server: self).register(api)
        GalleryRoutes(server: self).register(api)
        BatchRoutes(server: self).register(api)
        SectionOrder.register(api, server: self)
        IngestRoutes(server: self).register(api)
        EventRoutes(server: self).register(api)
        ImageRoutes(server: self).register(api)
        ArchiveRoutes(server: self).register(api)
        OpenAPIRoutes().register(api)
        StaticRoutes(server: self).register(router)
        HealthRoutes(server: self).register(router)
        MetricsRoutes().register(router)
        PageRoutes(server: self).register(router)
        router.add(middleware: FileMiddleware(configuration.webFolder.path, searchForIndexHtml: true, logger: logger))
        return router
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully: no new connections, live
    /// streams end, requests in flight finish (a batch that was answered is committed; one being
    /// received is completed), ingestion stops (its jobs stay pending for the next start). A
    /// request that is still not done after `gracePeriod` (a client that stopped sending an
    /// upload) is cancelled: its connection closes and nothing of it is kept; the process then
    /// ends within `gracePeriod` plus at most 5 s.
    public func run(gracePeriod: Duration = .seconds(15), onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var group = ServiceGroupConfiguration(services: [application(onRunning: onRunning)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = gracePeriod
        group.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }

    /// The HTTP server. `onRunning` is called with the port it listens on (the one it got when
    /// configured with 0).
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(router: router(), server: configuration.http1Server,
                    configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "gallery"),
                    services: [ingestor, galleryList], onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
                    logger: logger)
    }
}
