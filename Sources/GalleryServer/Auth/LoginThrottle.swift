import Foundation
import Synchronization

/// Failed sign-ins and link passwords, counted per account (or link) and per client address,
/// with growing delays: the first `freeAttempts` failures cost nothing, then each further
/// failure locks that key for 1, 2, 4 … seconds, up to 15 minutes. A success clears the
/// account's count (not the address's: one good password does not excuse a spray).
public final class LoginThrottle: Sendable {
    /// The keys of a sign-in (and of a current-password check): the account as its name is looked
    /// up (trimmed, any case: "carol " and " CAROL" are guesses at carol's password like "carol",
    /// not fresh names to guess from — the attacker review of session 27) and the client's address.
    public static func keys(name: String, client: String) -> [String] {
        ["user:" + normalized(name), "ip:" + client]
    }

    /// An account name as sign-in looks it up: trimmed, lower case.
    static func normalized(_ name: String) -> String { name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    struct Entry { var failures: Int; var lockedUntil: Double }
    private let entries = Mutex<[String: Entry]>([:])
    public let freeAttempts: Int
    public let maxDelay: Double

    public init(freeAttempts: Int = 5, maxDelay: Double = 900) {
        self.freeAttempts = freeAttempts
        self.maxDelay = maxDelay
    }

    /// Seconds to wait before any of `keys` may try again (0: go ahead).
    public func wait(_ keys: [String], now: Double = Date().timeIntervalSince1970) -> Int {
        entries.withLock { e in keys.map { Int(ceil(max(0, (e[$0]?.lockedUntil ?? 0) - now))) }.max() ?? 0 }
    }

    public func failed(_ keys: [String], now: Double = Date().timeIntervalSince1970) {
        entries.withLock { e in
            if e.count > 100_000 { e = e.filter { $0.value.lockedUntil > now } }
            for k in keys {
                var entry = e[k] ?? Entry(failures: 0, lockedUntil: 0)
                entry.failures += 1
                if entry.failures > freeAttempts {
                    entry.lockedUntil = now + min(maxDelay, pow(2, Double(entry.failures - freeAttempts - 1)))
                }
                e[k] = entry
            }
        }
    }

    public func succeeded(_ key: String) { _ = entries.withLock { $0.removeValue(forKey: key) } }

    /// Failures counted for `key` (tests: which keys an attempt counted against, without timing).
    func failures(_ key: String) -> Int { entries.withLock { $0[key]?.failures ?? 0 } }
}
