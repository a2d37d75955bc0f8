import Crypto
import Foundation

/// Browsers that signed in to an account before (OWASP's "device cookie"). Their sign-ins to that
/// account are throttled under a key of their own instead of the account-wide count, which anyone
/// who knows the name can run up with wrong passwords: that locked the account's owner out for up
/// to 15 minutes at a time, again and again (the attacker review of session 27). Failures from a
/// known device count against that device (and its address), so it cannot guess freely either.
///
/// `gallery_device=<account name in hex>.<nonce>.<HMAC-SHA256 of the two>`, sent only to
/// `/api/login` (`HttpOnly`, `SameSite=Strict`, a year). The key is the database's
/// (`GalleryStore.serverKey("device-cookies")`): a device stays known after a restart and at
/// every instance on the same database.
struct DeviceCookies: Sendable {
    static let name = "gallery_device"
    static let lifetime = 365 * 24 * 3600
    static let keyName = "device-cookies"
    private let key: SymmetricKey

    init(key: [UInt8]) { self.key = SymmetricKey(data: key) }

    /// A new cookie value for a browser that just signed in as `account`.
    func issue(for account: String) -> String {
        let payload = Self.hex(LoginThrottle.normalized(account)) + "." + Secrets.token(bytes: 16)
        return payload + "." + mac(payload)
    }

    /// The throttle key of the device `cookie` names, when it was issued here for the account
    /// `name` signs in as; nil for no cookie, another account's, a forged or an old one.
    func throttleKey(_ cookie: String?, signingInAs name: String) -> String? {
        guard let cookie else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, String(parts[0]) == Self.hex(LoginThrottle.normalized(name)),
              Secrets.constantTimeEquals(mac(parts[0] + "." + parts[1]), String(parts[2])) else { return nil }
        return "device:" + parts[1]
    }

    private func mac(_ payload: String) -> String {
        Secrets.base64url(Array(HMAC<SHA256>.authenticationCode(for: Array(payload.utf8), using: key)))
    }

    private static func hex(_ text: String) -> String { text.utf8.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
