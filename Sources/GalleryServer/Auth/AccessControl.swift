import Foundation
import GalleryCore
import GalleryStore
import Logging
import Synchronization

/// Identities and roles for the server: resolves the session cookie or bearer token of a
/// request, answers what the identity may do in a gallery, and tells open live streams when
/// access was taken away (`changes`), so they re-check and close.
///
/// Lookups are cached for at most `cacheLifetime` (1 s from when their load began; `LookupCache`:
/// one load a key at a time, the next begun in the background while the entry still holds) and
/// the cache is emptied by every change this process makes to accounts, sessions, tokens, members
/// or links; a change made by another process (the `gallery user` command) is seen within that second.
public final class AccessControl: Sendable {
    public let store: GalleryStore
    let configuration: ServerConfiguration
    public let throttle = LoginThrottle()
    let devices: DeviceCookies
    private let identities = LookupCache<Identity?>(lifetime: AccessControl.cacheLifetime, refreshAhead: AccessControl.cacheRefreshAhead)
    private let roles = LookupCache<GalleryRole?>(lifetime: AccessControl.cacheLifetime, refreshAhead: AccessControl.cacheRefreshAhead)
    private let watchers = Mutex<[Int: AsyncStream<Void>.Continuation]>([:])
    private let nextWatcher = Atomic<Int>(0)
    private let setup = Mutex<String?>(nil)
    static let cacheLifetime: Duration = .seconds(1)
    /// A lookup used in the last half of its lifetime is loaded again in the background
    /// (`LookupCache`): a steady stream of requests never waits for one.
    static let cacheRefreshAhead: Duration = .milliseconds(500)
    /// A session's last use is written at most this often (a write per request would cost the move path).
    static let touchInterval: Double = 60

    public static let cookieName = "gallery_session"

    init(store: GalleryStore, configuration: ServerConfiguration, deviceKey: [UInt8]) {
        self.store = store
        self.configuration = configuration
        devices = DeviceCookies(key: deviceKey)
    }

    // MARK: First start

    /// With no account yet: a one-time setup token for the first account (nil once one exists).
    ///
    /// Each instance makes its own and prints its link; the database keeps their SHA-256 (migration
    /// v5 `setup_token`), so behind a proxy the form may be sent to any instance, and a token is
    /// spent once whichever instance takes it. All go when the first account is made.
    public func prepareSetup() async throws -> String? {
        guard try await store.accountCount() == 0 else { return nil }
        let token = setup.withLock { token in
            if token == nil { token = Secrets.token() }
            return token!
        }
        try await store.addSetupToken(hash: Secrets.digest(token))
        return token
    }

    /// Spends a setup token (this instance's or another's); false when it is wrong or spent.
    func spendSetupToken(_ candidate: String) async throws -> Bool {
        try await store.spendSetupToken(hash: Secrets.digest(candidate))
    }

    /// The first account could not be made after all: the token works again.
    func restoreSetupToken(_ t: String) async {
        try? await store.addSetupToken(hash: Secrets.digest(t))
    }

    // MARK: Who is asking

    /// The identity behind a session cookie value or a bearer token; nil when unknown, expired or revoked.
    func identity(cookie: String?, bearer: String?) async throws -> Identity? {
        if let bearer {
            let hash = Secrets.digest(bearer)
            return try await identities.value("t:" + hash) { try await self.tokenIdentity(hash: hash) }
        }
        if let cookie {
            let hash = Secrets.digest(cookie)
            return try await identities.value("s:" + hash) { try await self.sessionIdentity(hash: hash) }
        }
        return nil
    }

    private func tokenIdentity(hash: String) async throws -> Identity? {
        guard let (token, accountId) = try await store.token(hash: hash), let account = try await store.account(accountId) else { return nil }
        let now = GalleryStoreClock.now()
        if (token.lastUsedAt ?? 0) < now - Self.touchInterval { try await store.touchToken(token.id, at: now) }
        return Identity(principal: .account(account), credential: .token(token))
    }

    private func sessionIdentity(hash: String) async throws -> Identity? {
        guard let session = try await store.session(idHash: hash) else { return nil }
        let now = GalleryStoreClock.now()
        guard now - session.lastSeenAt < configuration.sessionIdleLifetime, now - session.createdAt < configuration.sessionAbsoluteLifetime else {
            try await store.deleteSession(idHash: hash)
            return nil
        }
        if session.lastSeenAt < now - Self.touchInterval { try await store.touchSession(idHash: hash, at: now) }
        switch session.owner {
        case let .account(id):
            guard let account = try await store.account(id) else { return nil }
            return Identity(principal: .account(account), credential: .session(idHash: hash))
        case let .link(id):
            guard let link = try await store.link(id), link.isUsable(at: now) else { return nil }
            if (link.lastUsedAt ?? 0) < now - Self.touchInterval { try await store.touchLink(link.id, at: now) }
            return Identity(principal: .link(link), credential: .session(idHash: hash))
        }
    }

    /// A new session for the owner; the answer's cookie value (the store keeps only its hash).
    func startSession(_ owner: SessionOwner) async throws -> String {
        let id = Secrets.token()
        try await store.createSession(idHash: Secrets.digest(id), owner: owner)
        return id
    }

    /// `Set-Cookie` for a new session, or one that clears it (`value` nil).
    func cookie(_ value: String?) -> String {
        var parts = ["\(Self.cookieName)=\(value ?? "")", "Path=/", "HttpOnly", "SameSite=Lax"]
        parts.append(value == nil ? "Max-Age=0" : "Max-Age=\(Int(configuration.sessionAbsoluteLifetime))")
        if configuration.publicURL?.scheme == "https" { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    /// The device cookie (`DeviceCookies`): sent only to the sign-in.
    func deviceCookie(_ value: String) -> String {
        var parts = ["\(DeviceCookies.name)=\(value)", "Path=/api/login", "HttpOnly", "SameSite=Strict", "Max-Age=\(DeviceCookies.lifetime)"]
        if configuration.publicURL?.scheme == "https" { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }

    // MARK: What it may do

    /// The role of an account in a gallery (cached like identities).
    func role(account: Int64, gallery: Int64) async throws -> GalleryRole? {
        try await roles.value("\(account):\(gallery)") { try await self.store.role(account: account, gallery: gallery) }
    }

    /// Whether the identity may do `action` in the gallery: `nil` when it may not even see the
    /// gallery (answered 404, so a gallery's existence is not told to strangers), else the verdict.
    func allows(_ identity: Identity, _ action: GalleryAction, gallery: Int64) async throws -> Bool? {
        switch identity.principal {
        case let .account(a):
            guard let role = try await role(account: a.id, gallery: gallery) else { return nil }
            return AccessPolicy.allows(role, action)
        case let .link(l):
            guard l.gallery == gallery else { return nil }
            return AccessPolicy.allows(link: l.role, action, options: l.options)
        }
    }

    // MARK: Taking access away

    /// Call after any change that can take access away: caches are emptied and open live
    /// streams re-check their caller — here and, on PostgreSQL, in the other instances.
    public func accessChanged() {
        accessChangedElsewhere()
        store.tellOtherInstances(.access)
    }

    /// A change another instance made (told through the database): this process's caches and streams.
    func accessChangedElsewhere() {
        identities.invalidate()
        roles.invalidate()
        for c in watchers.withLock({ Array($0.values) }) { c.yield() }
    }

    /// A stream that yields after every `accessChanged()`; cancel with the returned closure.
    func watch() -> (AsyncStream<Void>, @Sendable () -> Void) {
        let id = nextWatcher.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        watchers.withLock { $0[id] = continuation }
        return (stream, { [weak self] in self?.watchers.withLock { $0.removeValue(forKey: id) }?.finish() })
    }

    /// Re-resolves an identity without the cache (for open streams after a change).
    func stillValid(_ identity: Identity, gallery: Int64) async throws -> Bool {
        guard let fresh = try await fresh(identity) else { return false }
        return try await allows(fresh, .view, gallery: gallery) == true
    }

    /// The identity as the store tells it now (no cache); nil when its session, token or link
    /// has ended.
    func fresh(_ identity: Identity) async throws -> Identity? {
        switch identity.credential {
        case let .session(hash): return try await sessionIdentity(hash: hash)
        case let .token(t):
            return try await store.tokens(account: identity.account?.id ?? -1).contains(where: { $0.id == t.id }) ? identity : nil
        }
    }
}

/// The wall clock of stored times (seconds since 1970), in one place.
enum GalleryStoreClock {
    static func now() -> Double { Date().timeIntervalSince1970 }
}

extension AccessControl {
    /// Whether the identity may see some gallery holding the image.
    func maySee(image hash: String, _ identity: Identity) async throws -> Bool {
        switch identity.principal {
        case let .account(a): return try await store.accountMaySeeImage(account: a.id, hash: hash)
        case let .link(l): return try await store.linkMaySeeImage(link: l, hash: hash)
        }
    }
}

extension AccessControl {
    /// The current password of a signed-in account, checked under the sign-in throttle, so a
    /// borrowed session cannot guess it freely through a password change or turning the second
    /// factor off (the attacker review of session 27). Throws 429 while the keys wait, `refusal`
    /// when it is wrong.
    /// 429 (with `retryAfter`) while any of the keys waits after failed attempts: sign-in, link
    /// passwords, current-password checks.
    func refuseWhileThrottled(_ keys: [String]) throws {
        let wait = throttle.wait(keys)
        if wait > 0 { throw APIError(.tooManyRequests, "too many failed attempts: try again in \(wait) s", extra: ["retryAfter": .number(Double(wait))]) }
    }

    /// With the caller's session, its failures count against that session and address, not the
    /// account-wide count: anyone can run that up, and it kept the owner from changing a password.
    func checkCurrentPassword(_ password: String?, of account: Account, session: String?, client: String, refusal: APIError) async throws {
        let keys = session.map { ["session:" + $0, "ip:" + client] } ?? LoginThrottle.keys(name: account.name, client: client)
        try refuseWhileThrottled(keys)
        guard let password, let secrets = try await store.secrets(account.id),
              try await Secrets.verifyPassword(password, hash: secrets.passwordHash) else {
            throttle.failed(keys)
            throw refusal
        }
    }
}

