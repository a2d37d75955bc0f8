import Foundation
import Hummingbird
import GalleryCore
import GalleryStore
import ServiceLifecycle
import Synchronization

/// The caller's gallery list (`GET /api/galleries`) and its live stream
/// (`GET /api/galleries/events`): the picker of every window and device follows new, renamed,
/// duplicated, imported and deleted galleries and changes of membership.
///
/// The stream's events carry the caller's whole list, made by the same rule as the list route
/// (`visible(_:to:)`: an account sees the galleries it has a role in, a link's visitor its one
/// gallery), never anything else: a change to a gallery the caller may not see sends nothing,
/// since the caller's list is compared with what it was told last before anything is sent.
///
///     event: galleries
///     data: {"version": 7, "galleries": [GalleryInfo…]}
///
/// The first event is the list as it is on connecting; the next ones come when it differs
/// (name, role, item count, a gallery added or gone). `?since=V` with the `version` of an
/// event already received skips the first event while nothing was signalled after V; a V ahead
/// of the server's (a restarted server counts from 0 again) is refused (422): read the list.
/// The stream ends with `event: revoked` when the caller's session, token or link ends.
struct GalleryListRoutes {
    let server: GalleryServer

    struct ListEvent: Encodable {
        var version: Int64
        var galleries: [GalleryInfo]
    }

    /// What the caller may see of `all`, each with the caller's role there.
    static func visible(_ all: [GalleryInfo], to caller: Identity, store: GalleryStore) async throws -> [GalleryInfo] {
        switch caller.principal {
        case let .account(a):
            let roles = try await store.roles(account: a.id)
            return all.compactMap { g in roles[g.id].map { var g = g; g.role = $0.rawValue; return g } }
        case let .link(l):
            return all.filter { $0.id == l.gallery }.map { var g = $0; g.role = l.role.rawValue; return g }
        }
    }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        // Only what the caller may see, each with the caller's role there.
        api.get("galleries") { _, context in
            try JSONIO.response(try await Self.visible(try await server.store.listGalleries(), to: try context.caller, store: server.store))
        }
        api.get("galleries/events") { request, context in
            let caller = try context.caller
            let hub = server.galleryList
            let since: Int64? = try request.uri.queryParameters.get("since").map { text in
                guard let v = Int64(text), v >= 0 else { throw APIError(.badRequest, "since \"\(text)\" is not a version number") }
                guard v <= hub.version else { throw APIError(.unprocessableContent, "since \(v) is ahead of the gallery list (version \(hub.version)): read the list") }
                return v
            }
            let (signals, stopSignals) = hub.watch()
            let (accessChanges, stopAccess) = server.access.watch()
            let (merged, input) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(8))
            let pumps = [
                Task { for await _ in signals { input.yield(.listChanged) }; input.yield(.closed) },
                Task { for await _ in accessChanges { input.yield(.accessChanged) } },
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: server.configuration.streamAccessRecheck)
                        input.yield(.tick)
                    }
                },
            ]
            let store = server.store, access = server.access
            let resources = BodyResources { for p in pumps { p.cancel() }; input.finish(); stopSignals(); stopAccess() }
            let body = ResponseBody { writer in
                GalleryMetrics.streams.increment()
                defer { resources.release(); GalleryMetrics.streams.decrement() }
                var identity = caller
                var told: [Fingerprint]? = nil
                let version = hub.version
                if since == version { told = Self.fingerprint(try await Self.visible(try await store.listGalleries(), to: identity, store: store)) }
                var ticks = 0, pending = true, lastWrite = ContinuousClock.now
                try await withGracefulShutdownHandler {
                    for await wake in merged {
                        switch wake {
                        case .closed: input.finish(); continue
                        case .listChanged: pending = true
                        case .accessChanged: pending = true
                        case .tick:
                            ticks += 1
                            // Another process (the `gallery` command, another instance) and item
                            // counts: the list is read again every few seconds in any case.
                            if ticks % Self.recheckTicks == 0 { pending = true }
                        case .start: pending = true
                        }
                        // The caller again, without the cache: a session signed out, a token or
                        // link revoked or expired, an account removed end the stream.
                        let fresh: Identity?
                        do { fresh = try await access.fresh(identity) } catch { continue } // a database error is no proof of revocation: the next round decides
                        guard let fresh else {
                            try await writer.write(ByteBuffer(string: "event: revoked\ndata: {\"message\":\"your session has ended\"}\n\n"))
                            break
                        }
                        identity = fresh
                        guard pending else {
                            // A heartbeat finds clients that went away while the list was quiet.
                            if ContinuousClock.now - lastWrite >= EventRoutes.heartbeat {
                                try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                                lastWrite = .now
                            }
                            continue
                        }
                        pending = false
                        let v = hub.version
                        guard let list = try? await Self.visible(try await store.listGalleries(), to: identity, store: store) else { pending = true; continue }
                        let print = Self.fingerprint(list)
                        if print == told { continue }
                        told = print
                        let data = String(decoding: try JSONIO.encoder.encode(ListEvent(version: v, galleries: list)), as: UTF8.self)
                        try await writer.write(ByteBuffer(string: "event: galleries\ndata: \(data)\n\n"))
                        lastWrite = .now
                    }
                } onGracefulShutdown: {
                    input.finish()
                }
                try await writer.finish(nil)
            }
            input.yield(.start)
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }

    enum Wake: Sendable { case start, listChanged, accessChanged, tick, closed }

    /// The list is read again every `recheckTicks` access checks (5 s by default) without a signal.
    static let recheckTicks = 5

    /// What the picker shows of a gallery: an event is sent when this differs.
    struct Fingerprint: Equatable {
        var id: Int64, name: String, role: String?, itemCount: Int
    }

    static func fingerprint(_ list: [GalleryInfo]) -> [Fingerprint] {
        list.map { Fingerprint(id: $0.id, name: $0.name, role: $0.role, itemCount: $0.itemCount) }
    }
}

/// Tells open gallery-list streams that the list may have changed (a gallery created, renamed,
/// duplicated, imported or deleted in this process or, on PostgreSQL, in another instance), and
/// ends them all when the server stops (it is one of the application's services: open streams
/// would keep the server from draining).
public final class GalleryListSignal: Service, Sendable {
    private let watchers = Mutex<(next: Int, open: [Int: AsyncStream<Void>.Continuation], closed: Bool)>((0, [:], false))
    private let counter = Atomic<Int64>(0)
    /// Passes a change made here on to the other instances (`GalleryStore.tellOtherInstances`).
    private let relay = Mutex<(@Sendable () -> Void)?>(nil)

    public init() {}

    /// The number of changes signalled since the server started.
    public var version: Int64 { counter.load(ordering: .relaxed) }

    func relay(to other: @escaping @Sendable () -> Void) { relay.withLock { $0 = other } }

    /// Call after a change to the list of galleries.
    public func changed() {
        changedElsewhere()
        relay.withLock { $0 }?()
    }

    /// A change another instance made (told through the database): this process's streams only.
    func changedElsewhere() {
        counter.add(1, ordering: .relaxed)
        for c in watchers.withLock({ Array($0.open.values) }) { c.yield() }
    }

    /// A stream that yields after every `changed()` and finishes when the server stops; cancel
    /// with the returned closure.
    func watch() -> (AsyncStream<Void>, @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: Int? = watchers.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.open[state.next] = continuation
            return state.next
        }
        guard let id else { continuation.finish(); return (stream, {}) }
        return (stream, { [weak self] in self?.watchers.withLock { $0.open.removeValue(forKey: id) }?.finish() })
    }

    /// Ends every open stream.
    public func closeAll() {
        let all = watchers.withLock { state -> [AsyncStream<Void>.Continuation] in
            state.closed = true
            defer { state.open = [:] }
            return Array(state.open.values)
        }
        for c in all { c.finish() }
    }

    public func run() async throws {
        try? await gracefulShutdown()
        closeAll()
    }
}
