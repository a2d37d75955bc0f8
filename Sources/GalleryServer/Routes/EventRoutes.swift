import Foundation
import Hummingbird
import GalleryCore
import GalleryStore
import ServiceLifecycle

/// The live stream of a gallery (B2) as server-sent events. Each event carries the staged
/// changes of one version; `?since=V` (or the `Last-Event-ID` header an EventSource sends on
/// reconnect) starts with the changes from V to now instead of a full snapshot; a V outside the
/// catch-up window gets `reload` (read the gallery's columns again) instead.
///
///     event: changes            event: snapshot              event: reload
///     id: 42                    id: 42                       id: 42
///     data: {ChangesJSON}       data: {GallerySnapshotJSON}  data: {"version": 42, "message": "…"}
struct EventRoutes {
    struct ReloadJSON: Encodable {
        var version: Int64
        var message = "the version you had is older than the changes this server keeps: read the gallery again"
    }

    let server: GalleryServer

    func register(_ api: RouterGroup<GalleryRequestContext>) {
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
            // Events, a heartbeat and the end of access merged into one stream: the heartbeat finds
            // clients that went away while the gallery was quiet, a shutdown ends the stream so the
            // server drains, and access taken away (link revoked or expired, member removed,
            // signed out) ends it with a last `revoked` event.
            let (merged, input) = AsyncStream<Outgoing>.makeStream()
            let pump = Task { for await e in stream { input.yield(.event(e)) }; input.finish() }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.heartbeat)
                    input.yield(.heartbeat)
                }
            }
            let guardian = revocationGuard(identity: try context.caller, gallery: gallery, input: input)
            let resources = BodyResources { pump.cancel(); ticker.cancel(); guardian.cancel(); input.finish(); cancel() }
            let body = ResponseBody { writer in
                GalleryMetrics.streams.increment()
                defer { resources.release(); GalleryMetrics.streams.decrement() }
                try await withGracefulShutdownHandler {
                    for await outgoing in merged {
                        switch outgoing {
                        case let .event(.changes(c)):
                            // The same buffer for every window at this catch-up (`CatchUpBodies`). A long
                            // catch-up is tens of events: between two, the requests queued meanwhile run.
                            try await writer.write(try await server.catchUpBodies.body(gallery: gallery, c).event)
                            await Task.yield()
                        case let .event(e): try await writer.write(ByteBuffer(string: try Self.format(e)))
                        case .heartbeat: try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        case let .revoked(message):
                            let data = String(decoding: try JSONIO.encoder.encode(["message": message]), as: UTF8.self)
                            try await writer.write(ByteBuffer(string: "event: revoked\ndata: \(data)\n\n"))
                            input.finish()
                        }
                    }
                } onGracefulShutdown: {
                    input.finish()
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }

    enum Outgoing: Sendable {
        case event(GalleryEvent)
        case heartbeat
        case revoked(String)
    }

    /// Watches the caller's access while the stream is open: after every change to accounts,
    /// sessions, members or links made in this process it re-checks at once (no cache), and
    /// every second in any case (a `gallery user remove` beside the server, another instance);
    /// a link's expiry ends it on time.
    func revocationGuard(identity: Identity, gallery: Int64, input: AsyncStream<Outgoing>.Continuation) -> Task<Void, Never> {
        let access = server.access, recheck = server.configuration.streamAccessRecheck
        let (changes, stop) = access.watch()
        let message = identity.link != nil ? "this share link was revoked" : "your access to this gallery has ended"
        let expiry = Task {
            guard let at = identity.link?.expiresAt else { return }
            try? await Task.sleep(for: .seconds(max(0, at - GalleryStoreClock.now())))
            if !Task.isCancelled { input.yield(.revoked("this share link has expired")) }
        }
        return Task {
            defer { stop(); expiry.cancel() }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in changes where (try? await access.stillValid(identity, gallery: gallery)) != true {
                        input.yield(.revoked(message))
                        return
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: recheck)
                        // A database error is no proof of revocation: the next round decides.
                        if !Task.isCancelled, (try? await access.stillValid(identity, gallery: gallery)) == false {
                            input.yield(.revoked(message))
                            return
                        }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    static let heartbeat: Duration = .seconds(15)

    static func format(_ event: GalleryEvent) throws -> String {
        switch event {
        case let .changes(c):
            let data = try c.fastJSON ?? Array(JSONIO.encoder.encode(c))
            return "event: changes\nid: \(c.toVersion)\ndata: \(String(decoding: data, as: UTF8.self))\n\n"
        case let .snapshot(s):
            return "event: snapshot\nid: \(s.version)\ndata: \(String(decoding: try JSONIO.encoder.encode(s), as: UTF8.self))\n\n"
        case let .reload(version):
            let data = String(decoding: try JSONIO.encoder.encode(ReloadJSON(version: version)), as: UTF8.self)
            return "event: reload\nid: \(version)\ndata: \(data)\n\n"
        case .deleted:
            return "event: deleted\ndata: {}\n\n"
        }
    }
}
