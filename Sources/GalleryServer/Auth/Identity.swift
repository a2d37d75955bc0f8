import GalleryCore
import GalleryStore

/// Who a request acts as: an account (through a browser session or an API token) or the
/// visitor of a share link (through a session bound to that link).
public struct Identity: Sendable {
    public enum Principal: Sendable {
        case account(Account)
        case link(ShareLink)
    }
    public enum Credential: Sendable {
        /// The SHA-256 of the session cookie.
        case session(idHash: String)
        case token(APIToken)
    }

    public var principal: Principal
    public var credential: Credential

    public var account: Account? { if case let .account(a) = principal { return a } else { return nil } }
    public var link: ShareLink? { if case let .link(l) = principal { return l } else { return nil } }
    public var sessionHash: String? { if case let .session(h) = credential { return h } else { return nil } }
    /// A read-only API token: GET only.
    public var isReadOnly: Bool { if case let .token(t) = credential { return t.scope == .read } else { return false } }
    public var isToken: Bool { if case .token = credential { return true } else { return false } }
}
