import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import GalleryCore
import GalleryServer
import GalleryStore
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL going away while the server runs (issue 14, bad input): `/readyz` says the database
/// does not answer, requests get 503 with a message that says so, and when the database is back
/// the server recovers by itself (its connections are opened again on next use) and the
/// gallery's versions go on where they were. A cluster of the test's own (scripts/pg-test-cluster.sh),
/// since the shared one must stay up for the other tests.
@Suite(.enabled(if: Backend.tested.contains(.postgres), "GALLERY_TEST_POSTGRES=skip"))
struct PostgresOutageTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/pg-test-cluster.sh")

    /// Runs the cluster script; answers what it printed. Through system(3), which waits for the
    /// script itself: Foundation's Process, waiting for a script that leaves a daemon behind
    /// (pg_ctl start), was seen never to return here.
    @discardableResult
    static func cluster(_ arguments: String...) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let status = system("'\(script.path)' \(arguments.joined(separator: " ")) > '\(output.path)'")
        guard status == 0 else { throw TestSetupError(description: "pg-test-cluster.sh \(arguments) failed (\(status))") }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }

    @Test func theDatabaseGoingAwayGives503AndTheServerRecoversWhenItIsBack() async throws {
        let started = try Self.cluster("start")
        func value(_ name: String) throws -> String {
            try #require(started.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }.map { String($0.split(separator: "=", maxSplits: 1)[1]) })
        }
        let dir = try value("GALLERY_PG_DIR"), url = try value("GALLERY_TEST_POSTGRES")
        defer { _ = try? Self.cluster("stop", dir) }
        let server = try await makeServer { $0.databaseURL = url }
        let start = try await seeded(server, n: 3)
        let g = start.gallery.id, ids = start.sections[0].items.map(\.id)
        try await server.test(.router) { client in
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)

            try Self.cluster("down", dir)
            // A monitor that sends a token (one this process has not looked up in the last second, so
            // not in its cache): health checks look up no identity, so the process still answers
            // /healthz, and /readyz says what is not ready (before, the token's lookup met the outage
            // first: 503 "database unavailable" on both).
            let monitor: HTTPFields = [.authorization: "Bearer gat_a_monitor_token_not_looked_up_yet"]
            let health = try await client.execute(uri: "/healthz", method: .get, headers: monitor)
            #expect(health.status == .ok, "\(String(buffer: health.body))")
            let ready = try await client.execute(uri: "/readyz", method: .get, headers: monitor)
            #expect(ready.status == .serviceUnavailable)
            #expect(message(ready) == "not ready: the database does not answer", "\(String(buffer: ready.body))")
            let move = ops(#"{"op": "swap", "a": \#(ids[0]), "b": \#(ids[2])}"#)
            let refused = try await client.execute(uri: "/api/galleries/\(g)/batch", method: .post, body: ByteBuffer(string: move))
            #expect(refused.status == .serviceUnavailable)
            #expect(String(buffer: refused.body).contains("database unavailable"), "\(String(buffer: refused.body))")
            let read = try await client.execute(uri: "/api/galleries/\(g)", method: .get)
            #expect(read.status == .serviceUnavailable)
            // Anyone may meet the outage (sign-in, the session's state): the answer says what is wrong,
            // not where the database is nor what the driver said — that is for the server's log.
            let port = try #require(URLComponents(string: url)?.port)
            for answer in [refused, read, try await client.execute(uri: "/api/session", method: .get)] {
                let body = String(buffer: answer.body)
                #expect(answer.status == .serviceUnavailable && body.contains("database unavailable"), "\(body)")
                for secret in ["postgres://", "127.0.0.1", "\(port)", "gallery_test", "Connection"] {
                    #expect(!body.contains(secret), "a 503 names \(secret): \(body)")
                }
            }

            try Self.cluster("up", dir)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            let answer: BatchAnswer = try await client.json(.post, "/api/galleries/\(g)/batch", move)
            #expect(answer.version == start.version + 1, "the refused batch left no version behind")
            let now = try await client.snapshot(g)
            #expect(now.sections[0].items.map(\.id) == [ids[2], ids[1], ids[0]])
        }
    }
}
