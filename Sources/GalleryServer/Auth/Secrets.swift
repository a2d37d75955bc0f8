import Crypto
import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Random secrets, their stored form and the comparisons of them.
///
/// Session ids, API tokens, share-link tokens and recovery codes are 256 bits from the
/// system's CSPRNG (`SystemRandomNumberGenerator`: getrandom(2) on Linux), given to the client
/// as base64url and stored as the SHA-256 of that text: a copy of the database opens nothing.
/// Passwords (accounts and links) are bcrypt hashes of cost 12, computed off the event loop.
public enum Secrets {
    /// The bcrypt cost (2^12 rounds: ~0.25 s on this machine).
    public static let bcryptCost: UInt8 = 12
    /// bcrypt reads at most 72 bytes: a longer password is refused rather than silently cut.
    public static let maxPasswordBytes = 72
    public static let minPasswordCharacters = 8

    /// `bytes` random bytes from the CSPRNG as base64url without padding.
    public static func token(bytes: Int = 32) -> String {
        var rng = SystemRandomNumberGenerator()
        let raw = (0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
        return base64url(raw)
    }

    public static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// What the store keeps of a random secret: its SHA-256 in lower-case hex.
    public static func digest(_ secret: String) -> String {
        // Hex by table: `String(format: "%02x")` per byte cost ~64 Foundation formatter calls on
        // every signed-in request (issue 15.3).
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(secret.utf8)) {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Equal strings, compared in time that depends only on their lengths.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    /// Why a new password is refused, or nil.
    public static func passwordProblem(_ password: String) -> String? {
        if password.utf8.count > maxPasswordBytes {
            return "password is longer than \(maxPasswordBytes) bytes (bcrypt's limit): choose a shorter one"
        }
        if password.count < minPasswordCharacters { return "password must have at least \(minPasswordCharacters) characters" }
        if password.utf8.contains(0) { return "password must not contain a NUL character" }
        return nil
    }

    /// bcrypt on NIO's blocking thread pool: a hash never holds up the event loop or the
    /// cooperative pool (two threads on two cores).
    public static func hashPassword(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: bcryptCost) }
    }

    public static func verifyPassword(_ password: String, hash: String) async throws -> Bool {
        // Over-long input never matches (and is not cut at 72 bytes by bcrypt).
        guard password.utf8.count <= maxPasswordBytes else {
            _ = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify("", hash: hash) }
            return false
        }
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash to verify against when the account does not exist, so that an unknown name costs
    /// as much time as a wrong password.
    static let decoyHash: String = Bcrypt.hash(token(), cost: bcryptCost)
}
