import Foundation
import Testing
import GalleryStore

/// The store suite and the server's store-heavy tests run on both backends: each test that opens
/// a store takes the backend as its argument (`@Test(arguments: Backend.tested)`), so every case
/// runs on SQLite and on PostgreSQL — one suite, not a copy (docs/storage.md).
///
/// PostgreSQL: the server `GALLERY_TEST_POSTGRES` names (scripts/test.sh starts a private
/// cluster and sets it: scripts/pg-test-cluster.sh); each store gets a new database there.
/// Without it the PostgreSQL cases FAIL — the test command must not pass with one backend
/// untested. Only `GALLERY_TEST_POSTGRES=skip`, set by hand for a quick local run, leaves them out.
public enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    public static var tested: [Backend] {
        ProcessInfo.processInfo.environment["GALLERY_TEST_POSTGRES"] == "skip" ? [.sqlite] : allCases
    }

    public var testDescription: String { rawValue }

    /// nil for SQLite (the data folder's file); for PostgreSQL, a new database's URL.
    public func databaseURL() async throws -> String? {
        switch self {
        case .sqlite: return nil
        case .postgres: return try await Self.makePostgresDatabase()
        }
    }

    /// A new PostgreSQL database beside `GALLERY_TEST_POSTGRES`'s; answers its URL.
    public static func makePostgresDatabase() async throws -> String {
        guard let base = ProcessInfo.processInfo.environment["GALLERY_TEST_POSTGRES"], base.hasPrefix("postgres") else {
            throw TestSetupError(description: """
                GALLERY_TEST_POSTGRES is not set: the store tests run on PostgreSQL too. Run scripts/test.sh \
                (it starts a private cluster), or `eval "$(scripts/pg-test-cluster.sh start)"` first; \
                GALLERY_TEST_POSTGRES=skip leaves the PostgreSQL cases out of a local run.
                """)
        }
        let name = "gt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        return try await offPool { try PostgresDatabase.createDatabase(beside: base, named: name) }
    }
}

/// `body` on a thread of its own, not Swift's cooperative pool: opening a PostgreSQL database
/// waits for its answers (`createDatabase`, the store's migration), and a parallel run starts
/// dozens of those at once — on the pool's two threads they held every other test up for a
/// minute, past the deadlines of the tests that wait for a process or a stream.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
