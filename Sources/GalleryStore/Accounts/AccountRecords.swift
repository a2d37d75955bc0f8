import GalleryCore

/// A person who signs in. The password hash is bcrypt; it never leaves the server.
public struct Account: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var admin: Bool
    public var createdAt: Double
    /// Two-factor sign-in is on (a confirmed TOTP secret).
    public var totp: Bool
}

/// What the store keeps about an account's credentials (never encoded in an answer).
public struct AccountSecrets: Sendable {
    public var account: Account
    public var passwordHash: String
    public var totpSecret: String?
    public var totpPending: String?
    public var totpLastStep: Int64?
}

/// A gallery member: an account and its role there.
public struct Member: Codable, Sendable, Equatable {
    public struct Person: Codable, Sendable, Equatable { public var id: Int64; public var name: String }
    public var user: Person
    public var role: GalleryRole
}

/// A share link as its owner sees it (the token itself is shown once, at creation).
public struct ShareLink: Codable, Sendable, Equatable {
    public var id: Int64
    public var gallery: Int64
    public var role: LinkRole
    public var hasPassword: Bool
    public var expiresAt: Double?
    public var allowDownload: Bool
    public var showMetadata: Bool
    public var createdAt: Double
    public var lastUsedAt: Double?
    public var revoked: Bool

    public var options: LinkOptions { LinkOptions(allowDownload: allowDownload, showMetadata: showMetadata) }

    public func isUsable(at now: Double) -> Bool { !revoked && (expiresAt.map { now < $0 } ?? true) }
}

/// A named API token for scripts (`Authorization: Bearer`).
public struct APIToken: Codable, Sendable, Equatable {
    public enum Scope: String, Codable, Sendable { case read, write }
    public var id: Int64
    public var name: String
    public var scope: Scope
    public var createdAt: Double
    public var lastUsedAt: Double?
}

/// Who a session belongs to: an account, or a share link's visitor.
public enum SessionOwner: Sendable, Equatable {
    case account(Int64)
    case link(Int64)
}

/// A stored session: the owner and its two clocks (idle and absolute lifetimes).
public struct StoredSession: Sendable, Equatable {
    public var owner: SessionOwner
    public var createdAt: Double
    public var lastSeenAt: Double
}
