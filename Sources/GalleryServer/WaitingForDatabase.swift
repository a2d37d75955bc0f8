import Foundation
import Hummingbird
import Logging
import GalleryStore
import ServiceLifecycle
import Synchronization

/// `gallery serve` with its database (PostgreSQL) unreachable at start (issue 14): the server
/// binds its port anyway, `/healthz` answers (the process is up), `/readyz` and every other
/// route answer 503 with a message that says the database cannot be reached, and the server
/// tries again — after 0.5 s, doubling to every 5 s — until the database answers. Then the
/// full server (`GalleryServer`) is made (migrations, the sample gallery) and answers on the
/// same port from the next request on; ingestion and the gallery-list streams start with it.
///
/// What will not pass by itself stops the start at once, with a message: a URL that is not
/// postgres://…, one that names no database, and PostgreSQL refusing the connection (a wrong
/// password, a role or database that does not exist). So does anything else that fails on
/// SQLite (the data folder is the database: nothing to wait for).
public enum ServeWhenReady {
    /// Serves until SIGTERM or SIGINT, as `GalleryServer.run`. `onReady` is called once the
    /// full server exists (at once, or when the database first answers).
    public static func run(configuration: ServerConfiguration, logger: Logger, gracePeriod: Duration,
                           retry: RetryPolicy = RetryPolicy(),
                           onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
                           onReady: @escaping @Sendable (GalleryServer) async -> Void = { _ in }) async throws {
        do {
            let server = try await GalleryServer(configuration: configuration, logger: logger)
            await onReady(server)
            try await server.run(gracePeriod: gracePeriod, onRunning: onRunning)
            return
        } catch let error as StoreError where configuration.databaseURL != nil && error.isUnavailable {
            logger.warning("the database cannot be reached; serving 503 until it answers", metadata: ["reason": "\(error.message)"])
        }
        let slot = ReadySlot()
        let waiting = WaitingService(configuration: configuration, logger: logger, retry: retry, slot: slot, onReady: onReady)
        let app = Application(responder: SwitchingResponder(slot: slot, waiting: waitingRouter(configuration).buildResponder()),
                              server: configuration.http1Server,
                              configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "gallery"),
                              services: [waiting],
                              onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
                              logger: logger)
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = gracePeriod
        group.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }

    /// How often to try the database again while it does not answer.
    public struct RetryPolicy: Sendable {
        public var first: Duration = .milliseconds(500)
        public var longest: Duration = .seconds(5)
        public init() {}
    }

    static let waitingPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="refresh" content="5"><title>Gallery: starting</title></head>
        <body><main><h1>The gallery is starting</h1>
        <p>The server cannot reach its database yet. This page tries again every 5 seconds.</p></main></body></html>

        """

    static let unreachable = "database unavailable: the server cannot reach its database; try again later"

    /// What answers while the database does not: the same security headers, Host check and
    /// error shape as the full server; `/healthz` 200, everything else 503 with `Retry-After`.
    static func waitingRouter(_ configuration: ServerConfiguration) -> Router<GalleryRequestContext> {
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: RequestGuard(configuration: configuration))
        router.add(middleware: APIErrorMiddleware())
        router.get("healthz") { _, _ in HealthRoutes.alive() }
        router.get("readyz") { _, _ -> Response in
            throw APIError(.serviceUnavailable, "not ready: the database does not answer", headers: [.retryAfter: "5", .cacheControl: "no-store"])
        }
        router.add(middleware: Unavailable())
        return router
    }

    /// Every path the waiting router has no route for: added after `/healthz` and `/readyz`, this
    /// middleware wraps only the router's not-found responder. 503.
    struct Unavailable: RouterMiddleware {
        typealias Context = GalleryRequestContext
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            // A person opening the page gets a page that says so and looks again every 5 s (a meta
            // refresh: the Content-Security-Policy allows no inline script); the API gets JSON.
            if request.method == .get, !request.uri.path.hasPrefix("/api/"),
               request.headers[.accept]?.contains("text/html") == true {
                return Response(status: .serviceUnavailable,
                                headers: [.contentType: "text/html; charset=utf-8", .retryAfter: "5", .cacheControl: "no-store"],
                                body: .init(byteBuffer: ByteBuffer(string: ServeWhenReady.waitingPage)))
            }
            throw APIError(.serviceUnavailable, ServeWhenReady.unreachable, headers: [.retryAfter: "5"])
        }
    }

    /// The full server's responder once it exists.
    final class ReadySlot: Sendable {
        let responder = Mutex<RouterResponder<GalleryRequestContext>?>(nil)
    }

    struct SwitchingResponder: HTTPResponder {
        let slot: ReadySlot
        let waiting: RouterResponder<GalleryRequestContext>
        func respond(to request: Request, context: GalleryRequestContext) async throws -> Response {
            let ready = slot.responder.withLock { $0 }
            return try await (ready ?? waiting).respond(to: request, context: context)
        }
    }

    /// Tries the database until it answers, then makes the full server, puts its router in the
    /// slot and runs its services (ingestion, the gallery-list streams) until shutdown.
    struct WaitingService: Service {
        let configuration: ServerConfiguration
        let logger: Logger
        let retry: RetryPolicy
        let slot: ReadySlot
        let onReady: @Sendable (GalleryServer) async -> Void

        func run() async throws {
            var wait = retry.first
            var tries = 1
            var server: GalleryServer?
            while server == nil {
                do {
                    let pause = wait
                    try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
                } catch { return } // stopped before the database came back
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                tries += 1
                do {
                    server = try await GalleryServer(configuration: configuration, logger: logger)
                } catch let error as StoreError where error.isUnavailable {
                    // Every try at first, then one line in ten: the log says it is still waiting, and why.
                    if tries <= 5 || tries % 10 == 0 {
                        logger.warning("the database still cannot be reached", metadata: ["tries": "\(tries)", "reason": "\(error.message)"])
                    }
                    wait = min(wait * 2, retry.longest)
                }
            }
            guard let server else { return }
            // Before it serves, as when the database answered at once: whoever sees it ready (/readyz)
            // finds what onReady does done (the setup link in the log; a test read the log too soon).
            await onReady(server)
            slot.responder.withLock { $0 = server.router().buildResponder() }
            logger.notice("the database answers: serving", metadata: ["tries": "\(tries)"])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await server.ingestor.run() }
                group.addTask { try await server.galleryList.run() }
                try await group.waitForAll()
            }
        }
    }
}

extension StoreError {
    /// The database cannot be reached now (it may come back by itself).
    public var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
