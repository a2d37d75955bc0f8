import Foundation
import Hummingbird
import Metrics
import CoreMetrics
import Prometheus

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
struct ErrorDurationMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        do { return try await next(request, context) } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            CoreMetrics.Timer(label: "http.server.request.duration", dimensions: [
                ("http.route", context.endpointPath ?? "NotFound"),
                ("http.request.method", request.method.description),
                ("http.response.status_code", status.code.description),
            ], preferredDisplayUnit: .seconds).recordNanoseconds(DispatchTime.now().uptimeNanoseconds - start)
            throw error
        }
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
