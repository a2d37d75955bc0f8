import Foundation
import Hummingbird
import HTTPTypes
import Synchronization

/// The (Origin, Host) pairs `RequestGuard` accepted, at most 64 (then forgotten and learnt again).
final class AcceptedOrigins: Sendable {
    private let pairs = Mutex<Set<String>>([])
    func contains(_ pair: String) -> Bool { pairs.withLock { $0.contains(pair) } }
    func insert(_ pair: String) { pairs.withLock { if $0.count >= 64 { $0.removeAll() }; $0.insert(pair) } }
}

/// The first middleware: refuses what no legitimate page of ours sends.
///
/// - A `Host` this server is not known by (DNS rebinding: a hostile name that resolves to us).
///   Known: an IP literal the server listens on (any, when bound to all interfaces),
///   `localhost` when bound to loopback or all interfaces, the bind name, `--public-url`'s host.
/// - A state-changing request from another site: it needs `Origin` equal to our own origin, or
///   `Sec-Fetch-Site: same-origin`. Bearer-token requests are exempt (a browser cannot add that
///   header cross-site without a preflight we never grant), not from authentication.
/// - A state-changing body that is not JSON, multipart or a zip: a cross-site "simple request"
///   (text/plain, form-urlencoded) is never parsed as JSON.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let configuration: ServerConfiguration
    /// The bind name as `isKnownHost` compares it, made once (not per request).
    let bind: String
    /// (Origin, Host) pairs the Origin check accepted: the check is a function of the two and the
    /// configuration, and parsing the Origin as a URL on every write was measurable (issue 15.3).
    let acceptedOrigins = AcceptedOrigins()

    init(configuration: ServerConfiguration) {
        self.configuration = configuration
        bind = configuration.host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, isKnownHost(authority) else {
            throw APIError(.misdirectedRequest, "unknown host \"\(request.head.authority ?? "")\": this server answers as \(knownNames)")
        }
        // A NUL in the path cuts a file name short where the page's files are served:
        // /index.html%00.js was index.html served as JavaScript (the attacker review of session 27).
        if Self.holdsNUL(request.uri.path) {
            throw APIError(.badRequest, "the path holds a NUL character")
        }
        if !request.method.isSafe {
            if AccessMiddleware.bearer(request) == nil { try checkOrigin(request, authority: authority) }
            try checkContentType(request)
        }
        return try await next(request, context)
    }

    func checkOrigin(_ request: Request, authority: String) throws {
        if let origin = request.headers[.origin] {
            let pair = origin + "\u{0}" + authority
            if acceptedOrigins.contains(pair) { return }
            guard acceptsOrigin(origin, authority: authority) else {
                let hint = origin.lowercased().hasPrefix("https:") && configuration.publicURL == nil
                    ? " (behind an https proxy, start the server with --public-url https://…)" : ""
                throw APIError(.forbidden, "cross-site request refused (Origin \(origin))" + hint)
            }
            acceptedOrigins.insert(pair)
            return
        }
        guard request.headers[.secFetchSite] == "same-origin" else {
            throw APIError(.forbidden, "cross-site request refused: a state-changing request needs an Origin header of this site")
        }
    }

    /// Our own origin, scheme included: `--public-url`'s origin, or this server's own plain-HTTP
    /// origin under the `Host` asked for. An http page of the public https name is another origin
    /// (anyone on the path can write that page), as is an https page on a name we serve plainly.
    func acceptsOrigin(_ origin: String, authority: String) -> Bool {
        let origin = origin.lowercased()
        if let publicURL = configuration.publicURL, Self.origin(publicURL) == origin { return true }
        guard let url = URL(string: origin), let host = url.host, url.scheme == "http" else { return false }
        let named = Self.authority(host: host, port: url.port)
        if let publicURL = configuration.publicURL, named == Self.authority(host: publicURL.host ?? "", port: publicURL.port).lowercased() {
            return false  // the public name under another scheme than the public URL's
        }
        return named == authority.lowercased()
    }

    func checkContentType(_ request: Request) throws {
        if request.headers[.contentType] == "application/json" { return }
        let hasBody = (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0 || request.headers[.transferEncoding] != nil
        guard hasBody else { return }
        let type = (request.headers[.contentType] ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard ["application/json", "multipart/form-data", "application/zip"].contains(type) else {
            throw APIError(.unsupportedMediaType, "a request body must be application/json, multipart/form-data or application/zip (got \"\(type)\")")
        }
    }

    var knownNames: String {
        ([configuration.host] + (configuration.publicURL?.host.map { [$0] } ?? [])).joined(separator: ", ")
    }

    /// The name decides, not the port: a rebinding page reaches us under its own name.
    func isKnownHost(_ authority: String) -> Bool {
        let host = Self.split(authority).host
        if let p = configuration.publicURL?.host?.lowercased(), p == host { return true }
        let wildcard = bind == "0.0.0.0" || bind == "::"
        let loopback = bind == "127.0.0.1" || bind == "::1" || bind == "localhost"
        if Self.isIPLiteral(host) { return wildcard || host == bind || (loopback && Self.isLoopback(host)) }
        if host == "localhost" { return wildcard || loopback }
        return host == bind
    }

    static func split(_ authority: String) -> (host: String, port: Int?) {
        let a = authority.lowercased()
        if a.hasPrefix("["), let end = a.firstIndex(of: "]") {
            let host = String(a[a.index(after: a.startIndex)..<end])
            let rest = a[a.index(after: end)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        if let colon = a.lastIndex(of: ":"), a.filter({ $0 == ":" }).count == 1 {
            return (String(a[..<colon]), Int(a[a.index(after: colon)...]))
        }
        return (a, nil)
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    static func isLoopback(_ host: String) -> Bool { host.hasPrefix("127.") || host == "::1" }

    /// A NUL byte or its escape `%00` in a path, read byte by byte (Foundation's `contains` of a
    /// string was ~2 % of the server's CPU under 50 clients moving, session 30).
    static func holdsNUL(_ path: String) -> Bool {
        var seen = 0 // how much of "%00" the bytes just before match
        for b in path.utf8 {
            if b == 0 { return true }
            switch (seen, b) {
            case (_, 0x25): seen = 1            // %
            case (1, 0x30): seen = 2            // %0
            case (2, 0x30): return true         // %00
            default: seen = 0
            }
        }
        return false
    }

    static func authority(host: String, port: Int?) -> String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(h):\($0)" } ?? h
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme ?? "http")://\(authority(host: url.host ?? "", port: url.port))".lowercased()
    }
}

extension HTTPRequest.Method {
    /// GET, HEAD, OPTIONS: requests that change nothing.
    var isSafe: Bool { self == .get || self == .head || self == .options }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}

/// Headers a security review expects on every answer, errors included.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String { SecurityPolicy.contentSecurityPolicy }
}

/// The strict content security policy: scripts and styles only from this server (no inline
/// script, no inline style attribute), wasm compiled by the page, never framed.
public enum SecurityPolicy {
    public static let contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; "
        + "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
}

extension SecurityHeadersMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch let e as HTTPResponseError {
            response = try e.response(from: request, context: context)
        } catch {
            response = try APIError(.internalServerError, "\(error)").response(from: request, context: context)
        }
        // The page's document brings its own: this policy with its one inline script's hash (PageDocument).
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "same-origin"
        response.headers[.crossOriginOpenerPolicy] = "same-origin"
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let crossOriginOpenerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")!
}

/// The Host rule of `RequestGuard`, for tests and the docs' examples.
public struct RequestGuardProbe: Sendable {
    public let configuration: ServerConfiguration
    public init(configuration: ServerConfiguration) { self.configuration = configuration }
    public func accepts(_ host: String) -> Bool { RequestGuard<BasicRequestContext>(configuration: configuration).isKnownHost(host) }
    public func acceptsOrigin(_ origin: String, host: String) -> Bool {
        RequestGuard<BasicRequestContext>(configuration: configuration).acceptsOrigin(origin, authority: host)
    }
    /// Whether a path is refused for a NUL in it.
    public static func refusesPath(_ path: String) -> Bool { RequestGuard<BasicRequestContext>.holdsNUL(path) }
}
