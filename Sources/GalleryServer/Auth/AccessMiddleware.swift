import Foundation
import Hummingbird
import HTTPTypes
import GalleryCore
import GalleryStore

/// Resolves who is asking (session cookie or bearer token) and applies the route's rule from
/// `AccessRules` before the handler runs. A route without a rule is refused (fail closed).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = GalleryRequestContext
    let access: AccessControl

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if !access.configuration.trustedProxies.isEmpty {
            context.clientAddress = Self.clientAddress(peer: context.clientAddress, forwardedFor: request.headers[values: Self.forwardedFor],
                                                       trusted: access.configuration.trustedProxies)
        }
        // Health checks answer for the process and its resources, not for a caller: no identity is
        // looked up. A token's lookup needs the database, and /healthz must answer while it is away
        // (a probe that sends the monitoring token got the outage's 503), /readyz say why it is not ready.
        if let path = context.endpointPath, Self.healthPaths.contains(path),
           AccessRules.rule(method: request.method.rawValue, path: path) == .anyone {
            return try await next(request, context)
        }
        let bearer = Self.bearer(request)
        context.identity = try await access.identity(cookie: Self.cookie(request, AccessControl.cookieName), bearer: bearer)
        if bearer != nil && context.identity == nil { throw APIError(.unauthorized, "unknown or revoked API token") }
        guard let path = context.endpointPath else {
            // A route's path with a method it does not have: 405 naming those it has (RFC 9110).
            let allowed = AccessRules.methods(forPath: request.uri.path)
            if !allowed.isEmpty, !allowed.contains(request.method.rawValue), !(request.method == .head && allowed.contains("GET")) {
                throw APIError(.methodNotAllowed, "\(request.method.rawValue) is not allowed here (\(allowed.sorted().joined(separator: ", ")))",
                               headers: [.allow: allowed.sorted().joined(separator: ", ")])
            }
            // No route matched: static files of the page (GET/HEAD only) or a 404.
            return try await next(request, context)
        }
        guard let rule = AccessRules.rule(method: request.method.rawValue, path: path) else {
            throw APIError(.internalServerError, "no authorization rule for \(request.method) \(path)")
        }
        if let identity = context.identity, identity.isReadOnly, !request.method.isSafe {
            throw APIError(.forbidden, "this API token is read-only")
        }
        try await check(rule, context)
        if request.method == .head, let type = Self.bodyBound[path] {
            // GET's handler sets up what only its body uses: a subscription and its tasks, or a whole
            // zip written to disk. `BodyResources` frees them when HEAD drops the body, but the work
            // (an export of a large gallery) would be done for nothing on every HEAD: answered here.
            return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-store"])
        }
        return try await next(request, context)
    }

    static let healthPaths: Set<String> = ["/healthz", "/readyz"]

    /// GET routes whose handler sets up work for its body (streams, zips): their HEAD's content type.
    /// A new stream or download route belongs here, and its handler's resources in `BodyResources`.
    static let bodyBound: [String: String] = [
        "/api/galleries/events": "text/event-stream",
        "/api/galleries/{gallery}/events": "text/event-stream",
        "/api/galleries/{gallery}/export": "application/zip",
        "/api/galleries/{gallery}/download": "application/zip",
    ]

    func check(_ rule: AccessRule, _ context: Context) async throws {
        switch rule {
        case .anyone: return
        case .visitor: _ = try context.caller
        case .account: try account(context)
        case .accountSession:
            try account(context)
            guard context.identity?.sessionHash != nil else { throw APIError(.forbidden, "sign in with a password to manage credentials") }
        case .adminSession:
            guard try account(context).admin else { throw APIError(.forbidden, "only an admin may manage users") }
            guard context.identity?.sessionHash != nil else { throw APIError(.forbidden, "sign in with a password to manage users") }
        case .admin:
            guard try account(context).admin else {
                throw APIError(.forbidden, context.endpointPath == "/metrics" ? "only an admin may read the server's metrics" : "only an admin may manage users")
            }
        case let .gallery(action):
            try await gallery(try context.id("gallery"), action, context)
        case let .item(action):
            let item = try context.id("item")
            let caller = try context.caller
            let place = try await access.store.placeOf(item: item)
            try await gallery(place.gallery, action, context, notFound: "unknown item \(item)")
            // A trashed item is there only for those who see the trash (as its image by hash):
            // for a viewer, member or link, it is gone (the attacker review of session 27 read
            // trashed photos, originals included, by item id).
            if place.trashed, try await access.allows(caller, .trash, gallery: place.gallery) != true {
                throw APIError(.notFound, "unknown item \(item)")
            }
        case .image:
            let caller = try context.caller
            let hash = context.parameters.get("hash") ?? ""
            guard ImageFiles.isHash(hash) else { throw APIError(.badRequest, "\"\(hash)\" is not an image hash") }
            let allowed: Bool
            switch caller.principal {
            case let .account(a): allowed = try await access.store.accountMaySeeImage(account: a.id, hash: hash)
            case let .link(l): allowed = try await access.store.linkMaySeeImage(link: l, hash: hash)
            }
            guard allowed else { throw APIError(.notFound, "image \(hash) not found") }
            if context.parameters.get("name") == "original", let l = caller.link, !l.options.allowsDownload {
                throw APIError(.forbidden, "this link does not allow downloads")
            }
        case .uploaderLink:
            guard try context.caller.link?.role == .uploader else { throw APIError(.forbidden, "only an uploader link's visitor has uploads") }
        }
    }

    @discardableResult
    func account(_ context: Context) throws -> Account {
        guard let a = try context.caller.account else { throw APIError(.forbidden, "a share link does not give access to this") }
        return a
    }

    func gallery(_ id: Int64, _ action: GalleryAction, _ context: Context, notFound: String? = nil) async throws {
        let caller = try context.caller
        switch try await access.allows(caller, action, gallery: id) {
        case nil: throw APIError(.notFound, notFound ?? "unknown gallery \(id)")
        case false?: throw APIError(.forbidden, "your role in gallery \(id) does not allow this (\(action.rawValue))")
        case true?: return
        }
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return trimmed(parts[1])
    }

    /// `trimmingCharacters(in: .whitespaces)` without Foundation when the value's ends are ASCII
    /// (its only ASCII whitespace is space and tab); other ends go to Foundation. (Foundation's
    /// was ~2 % of the server's CPU under 50 clients moving with bearer tokens, session 22.)
    static func trimmed(_ value: Substring) -> String {
        let u = value.utf8
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var a = u.startIndex, b = u.endIndex
        while a < b, isSpace(u[a]) { a = u.index(after: a) }
        while b > a, isSpace(u[u.index(before: b)]) { b = u.index(before: b) }
        guard a == b || (u[a] < 0x80 && u[u.index(before: b)] < 0x80) else { return value.trimmingCharacters(in: .whitespaces) }
        return String(value[a..<b])
    }

    static func cookie(_ request: Request, _ name: String) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, trimmed(kv[0]) == name {
                    let v = trimmed(kv[1])
                    return v.isEmpty ? nil : v
                }
            }
        }
        return nil
    }
}

extension AccessMiddleware {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address for a request from `peer`: the peer itself unless it is a trusted
    /// proxy, else the nearest address in `X-Forwarded-For` (read from the right: each proxy
    /// appends the peer it saw) that is not a trusted proxy. Entries left of that one were written
    /// by the client and prove nothing; a header with nothing usable leaves the proxy's address.
    static func clientAddress(peer: String, forwardedFor: [String], trusted: Set<String>) -> String {
        guard trusted.contains(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !trusted.contains(hop) {
            return RequestGuard<GalleryRequestContext>.isIPLiteral(hop) ? hop : peer
        }
        return peer
    }
}
