import Foundation
import Hummingbird
import Metrics
import CoreMetrics
import Prometheus
import Synchronization

/// The server's metrics in Prometheus' text format (B14), through swift-metrics: requests by
/// route, method and status with latency histograms (Hummingbird's MetricsMiddleware), batches
/// committed, the ingestion queue and the live streams open. One registry per process:
/// swift-metrics is bootstrapped with it once, the first time a server starts.
public enum GalleryMetrics {
    public static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Prometheus names allow [a-zA-Z0-9_:]; swift-metrics labels use dots.
        factory.nameAndLabelSanitizer = { name, labels in
            (sanitize(name), labels.map { (sanitize($0.0), $0.1) })
        }
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    static func sanitize(_ s: String) -> String {
        String(s.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") ? $0 : "_" })
    }

    /// Batches committed (each one version).
    static let batches: CoreMetrics.Counter = { _ = registry; return CoreMetrics.Counter(label: "gallery_batches_total") }()
    /// Ingestion jobs waiting or running.
    static let ingestQueue: CoreMetrics.Meter = { _ = registry; return CoreMetrics.Meter(label: "gallery_ingest_queue") }()
    /// Live streams open.
    static let streams: CoreMetrics.Meter = { _ = registry; return CoreMetrics.Meter(label: "gallery_live_streams") }()

    /// Bootstraps swift-metrics (once per process) and makes the gallery's own metrics, so they
    /// are listed from the start.
    static func start() {
        _ = (batches, ingestQueue, streams)
    }

    /// The exposition text.
    static func text() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

/// Hummingbird's MetricsMiddleware counts a refused request (a thrown error: 401, 403, 409, a
/// database outage's 503…) in `hb_requests` but records no duration for it, so the latency
/// histogram held successes only (its error series stayed at count 0). Placed just outside it,
/// this records the refusal's duration in the same series (same name and labels).
///
/// Its timers are kept, one per route, method and status: making one goes through the Prometheus
/// factory (names sanitised, the registry looked up under its lock), which made a refusal cost about
/// twice a `GET /healthz` under load (BENCHMARKS.md, session 23) — what a flood of refused requests
/// costs the server.
struct ErrorDurationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        do { return try await next(request, context) } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            ErrorTimers.timer(route: context.endpointPath ?? "NotFound", method: request.method, status: status.code)
                .recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
            throw error
        }
    }
}

/// The refusals' timers, made once each (routes are the router's templates or "NotFound", so there
/// are few; past `limit` a new one is made each time instead of kept).
enum ErrorTimers {
    struct Key: Hashable {
        var route: String
        var method: HTTPRequest.Method
        var status: Int
    }
    static let limit = 4096
    private static let timers = Mutex<[Key: CoreMetrics.Timer]>([:])

    static func timer(route: String, method: HTTPRequest.Method, status: Int) -> CoreMetrics.Timer {
        let key = Key(route: route, method: method, status: status)
        if let timer = timers.withLock({ $0[key] }) { return timer }
        let timer = CoreMetrics.Timer(label: "http.server.request.duration", dimensions: [
            ("http.route", route), ("http.request.method", method.description), ("http.response.status_code", status.description),
        ], preferredDisplayUnit: .seconds)
        timers.withLock { if $0.count < limit { $0[key] = timer } }
        return timer
    }

    /// Whether the timer of this route, method and status is kept (for tests).
    static func isKept(route: String, method: HTTPRequest.Method, status: Int) -> Bool {
        timers.withLock { $0[Key(route: route, method: method, status: status)] != nil }
    }
}

struct MetricsRoutes {
    func register(_ router: Router<GalleryRequestContext>) {
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(bytes: GalleryMetrics.text())))
        }
    }
}
