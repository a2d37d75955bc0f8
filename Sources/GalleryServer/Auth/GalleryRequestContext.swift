import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core storage plus who is asking
/// (resolved by `AccessMiddleware`) and from which address (for throttling).
public struct GalleryRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who the request acts as; nil for an anonymous request.
    public var identity: Identity?
    /// The peer's address ("unknown" when the transport has none, as in-process tests); behind a
    /// trusted proxy the client's address it forwarded (`AccessMiddleware`, `--trusted-proxy`).
    public internal(set) var clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// The identity, or a 401 for routes that need one (AccessMiddleware has checked the rule already).
    var caller: Identity {
        get throws {
            guard let identity else { throw APIError(.unauthorized, "sign in first") }
            return identity
        }
    }
}
