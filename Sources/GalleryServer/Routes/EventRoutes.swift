import Foundation
import Hummingbird
import GalleryCore
import GalleryStore
import ServiceLifecycle

/// The live stream of a gallery (B2) as server-sent events. Each event carries the staged
/// changes of one version; `?since=V` (or the `Last-Event-ID` header an EventSource sends on
/// reconnect) starts with the staged diff from V to now instead of a full snapshot.
///
///     event: changes            event: snapshot
///     id: 42                    id: 42
///     data: {ChangesJSON}       data: {GallerySnapshotJSON}
struct EventRoutes {
    let server: GalleryServer

    func register(_ api: RouterGroup<BasicRequestContext>) {
        api.get("galleries/:gallery/events") { request, context in
            let gallery = try context.gallery
            var since: Int64?
            if let text = request.uri.queryParameters.get("since") ?? request.headers.first(where: { $0.name.canonicalName == "last-event-id" })?.value {
                guard let v = Int64(text), v >= 0 else { throw APIError(.badRequest, "since \"\(text)\" is not a version number") }
                let current = try await server.store.gallery(gallery).version
                guard v <= current else { throw APIError(.unprocessableContent, "since \(v) is ahead of the gallery (version \(current))") }
                since = v
            }
            let (stream, cancel) = try await server.store.subscribe(gallery: gallery, since: since)
            // Events and a heartbeat (nil) merged into one stream: the heartbeat finds clients that
            // went away while the gallery was quiet, and a shutdown ends the stream so the server drains.
            let (merged, input) = AsyncStream<GalleryEvent?>.makeStream()
            let pump = Task { for await e in stream { input.yield(e) }; input.finish() }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.heartbeat)
                    input.yield(nil)
                }
            }
            let body = ResponseBody { writer in
                defer { pump.cancel(); ticker.cancel(); input.finish(); cancel() }
                try await withGracefulShutdownHandler {
                    for await event in merged {
                        try await writer.write(ByteBuffer(string: try event.map(Self.format) ?? ": heartbeat\n\n"))
                    }
                } onGracefulShutdown: {
                    input.finish()
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }

    static let heartbeat: Duration = .seconds(15)

    static func format(_ event: GalleryEvent) throws -> String {
        switch event {
        case let .changes(c):
            return "event: changes\nid: \(c.toVersion)\ndata: \(String(decoding: try JSONIO.encoder.encode(c), as: UTF8.self))\n\n"
        case let .snapshot(s):
            return "event: snapshot\nid: \(s.version)\ndata: \(String(decoding: try JSONIO.encoder.encode(s), as: UTF8.self))\n\n"
        case .deleted:
            return "event: deleted\ndata: {}\n\n"
        }
    }
}
