import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import GalleryCore
import GalleryServer
import GalleryStore
import StoreTestSupport
import AsyncHTTPClient
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

    /// The script's server outlives the script, so it must hold none of the caller's descriptors:
    /// run through system(3) it inherited every one without close-on-exec (a pipe, the socket
    /// pair Foundation's Process watches a child with), and a wait on their end never ended while
    /// it ran. A pipe made here without close-on-exec, open while the cluster starts: its server's
    /// descriptors name none of the pipe's (nor any other of this process's).
    @Test func theClusterServerHoldsNoneOfTheCallersDescriptors() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let started = try Self.cluster("start")
        let dir = try #require(started.split(separator: "\n").first { $0.hasPrefix("export GALLERY_PG_DIR=") }
            .map { String($0.split(separator: "=", maxSplits: 1)[1]) })
        defer { _ = try? Self.cluster("stop", dir) }
        let pid = try #require(try String(contentsOfFile: "\(dir)/data/postmaster.pid", encoding: .utf8).split(separator: "\n").first.map(String.init))
        /// The pipes and sockets among a process's descriptors from `from` on, by inode.
        func inodes(_ process: String, from: Int) -> Set<UInt64> {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/fd")) ?? []
            return Set(fds.compactMap { fd -> UInt64? in
                guard let n = Int(fd), n >= from else { return nil }
                var st = stat()
                guard stat("/proc/\(process)/fd/\(fd)", &st) == 0 else { return nil }
                let kind = st.st_mode & S_IFMT
                return kind == S_IFIFO || kind == S_IFSOCK ? UInt64(st.st_ino) : nil
            })
        }
        let server = inodes(pid, from: 0)
        #expect(!server.isEmpty, "the server's sockets are readable (/proc/\(pid)/fd)")
        var st = stat()
        try #require(fstat(ends[1], &st) == 0)
        #expect(!server.contains(UInt64(st.st_ino)), "the server holds the caller's pipe")
        #expect(server.isDisjoint(with: inodes("self", from: 3)), "the server holds descriptors of the caller")
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

    /// PostgreSQL down when `gallery serve` starts (issue 14, bad input): the server binds its
    /// port anyway; `/healthz` says the process is up, `/readyz`, the API and the page answer 503
    /// saying the database cannot be reached (the page as a page that looks again), and once
    /// PostgreSQL is started the same process serves: migrations, the sample gallery, the setup
    /// link in its log, sign-in state. Before, `serve` exited 1 and a supervisor had to loop.
    /// PostgreSQL refusing the connection (a database that does not exist) will not pass by
    /// itself: that still stops `serve` at once, with PostgreSQL's words.
    @Test func postgresDownAtStartIsWaitedForAndServedWhenItComes() async throws {
        let binary = CrashRecoveryTests.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the gallery product first (swift build)")
        let started = try Self.cluster("start")
        func value(_ name: String) throws -> String {
            try #require(started.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }.map { String($0.split(separator: "=", maxSplits: 1)[1]) })
        }
        let dir = try value("GALLERY_PG_DIR"), url = try value("GALLERY_TEST_POSTGRES")
        defer { _ = try? Self.cluster("stop", dir) }

        // A database that does not exist: PostgreSQL answers no, serve stops with its words.
        let refusedData = testFolder("pg-refused")
        try FileManager.default.createDirectory(at: refusedData, withIntermediateDirectories: true)
        let missing = url.replacingOccurrences(of: "/gallery_test", with: "/no_such_database")
        let refused = try CrashRecoveryTests.spawn(data: refusedData, port: CrashRecoveryTests.freePort(), database: missing)
        refused.waitUntilExit()
        let refusedLog = try String(contentsOf: refusedData.appendingPathComponent("server.log"), encoding: .utf8)
        #expect(refused.terminationReason == .exit && refused.terminationStatus != 0)
        #expect(refusedLog.contains("refused the connection") && refusedLog.contains("no_such_database"), "\(refusedLog)")

        try Self.cluster("down", dir)
        let data = testFolder("pg-down-at-start")
        try FileManager.default.createDirectory(at: data.appendingPathComponent("web"), withIntermediateDirectories: true)
        try Data("<!doctype html><title>the page</title>".utf8).write(to: data.appendingPathComponent("web/index.html"))
        let port = CrashRecoveryTests.freePort()
        let p = try CrashRecoveryTests.spawn(data: data, port: port, database: url, extra: ["--log-level", "notice"], sample: true)
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
        func get(_ path: String, accept: String? = nil) async throws -> (HTTPResponse.Status, String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            if let accept { request.headers.add(name: "Accept", value: accept) }
            let r = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
            return (HTTPResponse.Status(code: Int(r.status.code)), String(buffer: try await r.body.collect(upTo: 1 << 20)))
        }
        var health: HTTPResponse.Status?
        for _ in 0..<300 where health == nil && p.isRunning {
            if let (status, _) = try? await get("/healthz") { health = status } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(p.isRunning, "serve stopped instead of waiting for the database")
        #expect(health == .ok)
        let ready = try await get("/readyz")
        #expect(ready.0 == .serviceUnavailable && ready.1.contains("not ready: the database does not answer"), "\(ready)")
        for path in ["/api/galleries", "/api/session"] {
            let answer = try await get(path)
            #expect(answer.0 == .serviceUnavailable && answer.1.contains("cannot reach its database"), "\(path): \(answer)")
            #expect(!answer.1.contains("\(try #require(URLComponents(string: url)?.port))"), "a 503 names the database's port: \(answer.1)")
        }
        let page = try await get("/", accept: "text/html,application/xhtml+xml")
        #expect(page.0 == .serviceUnavailable && page.1.contains("cannot reach its database yet") && page.1.contains("http-equiv=\"refresh\""), "\(page)")
        // A write is still refused as before (no Origin), not taken in.
        var post = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/galleries")
        post.method = .POST
        post.headers.add(name: "Content-Type", value: "application/json")
        post.body = .bytes(ByteBuffer(string: #"{"title": "x"}"#))
        let cross = try await HTTPClient.shared.execute(post, timeout: .seconds(5))
        #expect(cross.status == .forbidden)

        try Self.cluster("up", dir)
        var readyAgain = false
        for _ in 0..<300 where !readyAgain && p.isRunning {
            if let (status, _) = try? await get("/readyz"), status == .ok { readyAgain = true } else { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(readyAgain, "the server did not get ready once PostgreSQL was up")
        let session = try await get("/api/session")
        #expect(session.0 == .ok && session.1.contains("\"setup\":true"), "\(session)")
        let shown = try await get("/", accept: "text/html")
        #expect(shown.0 == .ok && shown.1.contains("the page"), "\(shown)")
        let log = try String(contentsOf: data.appendingPathComponent("server.log"), encoding: .utf8)
        #expect(log.contains("no account yet: open http://"), "the setup link was not printed once the database answered: \(log)")
        let store = try GalleryStore(folder: testFolder("pg-down-at-start-reader"), databaseURL: url)
        #expect(try await store.listGalleries().count == 1, "the sample gallery was made in PostgreSQL")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 0)
    }
}
