import Foundation
import Hummingbird
import Logging
import GalleryStore

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
    let columnsCache = ColumnsCache()

    public init(configuration: ServerConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        store = try GalleryStore(folder: configuration.dataFolder)
        ingestor = Ingestor(store: store, configuration: configuration, logger: logger)
        if configuration.createSampleGallery, try await store.listGalleries().isEmpty {
            let g = try await SampleGallery.create(in: store, maxPixels: configuration.maxPixels)
            logger.info("created the sample gallery", metadata: ["gallery": "\(g.id)", "items": "\(g.itemCount)"])
        }
        Task.detached(priority: .background) { [columnsCache, store] in await columnsCache.prewarm(store: store) }
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.debug))
        router.add(middleware: APIErrorMiddleware())
        let api = router.group("api")
        GalleryRoutes(server: self).register(api)
        BatchRoutes(server: self).register(api)
        IngestRoutes(server: self).register(api)
        EventRoutes(server: self).register(api)
        ImageRoutes(server: self).register(api)
        ArchiveRoutes(server: self).register(api)
        StaticRoutes(server: self).register(router)
        router.add(middleware: FileMiddleware(configuration.webFolder.path, searchForIndexHtml: true, logger: logger))
        return router
    }

    public func application() -> some ApplicationProtocol {
        Application(router: router(), configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "gallery"),
                    services: [ingestor], logger: logger)
    }
}
