import Foundation
import Hummingbird

/// Health checks for whoever runs the server (B14): `/healthz` says the process answers,
/// `/readyz` that it can do its work: the database answers and the images folder takes a file.
/// Neither needs an identity nor tells anything about the galleries.
struct HealthRoutes {
    let server: GalleryServer

    struct Readiness: Encodable { var database: String; var images: String }

    /// `/healthz`'s answer (also while the server waits for its database: ServeWhenReady).
    static func alive() -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
    }

    func register(_ router: Router<GalleryRequestContext>) {
        router.get("healthz") { _, _ in Self.alive() }
        router.get("readyz") { _, _ in
            var problems: [String] = []
            var ready = Readiness(database: "ok", images: "ok")
            // Anyone may ask: the answer names what fails, the log says why (paths, errors).
            do {
                try await server.store.ping()
            } catch {
                ready.database = "unreachable"
                problems.append("the database does not answer")
                server.logger.error("not ready: the database does not answer", metadata: ["error": "\(error)"])
            }
            if let problem = server.store.files.writeProblem() {
                ready.images = "unusable"
                problems.append("the images folder cannot take a file (\(problem.reason))")
                server.logger.error("not ready: \(problem)")
            }
            guard problems.isEmpty else {
                throw APIError(.serviceUnavailable, "not ready: " + problems.joined(separator: "; "))
            }
            return try JSONIO.response(ready, headers: [.cacheControl: "no-store"])
        }
    }
}
