import Foundation
import Testing
import AsyncHTTPClient
import NIOCore
import GalleryCore
import GalleryStore
import StoreTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Two `gallery serve` processes started at the same moment on one empty PostgreSQL database and
/// one data folder (docs/storage.md, "One content-addressed images folder"): one sample gallery,
/// and a first-account link printed by one instance works on the other, once.
@Suite(.serialized) struct SharedStartTests {
    typealias Crash = CrashRecoveryTests

    @Test(arguments: Backend.tested.filter { $0 == .postgres })
    func twoInstancesStartingAtOnceMakeOneSampleAndShareTheSetupLink(_ backend: Backend) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Crash.binary.path), "build the gallery product first (swift build)")
        let data = testFolder("shared-start")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let database = try await backend.databaseURL()
        let (portA, portB) = (Crash.freePort(), Crash.freePort())
        // At once, each making the sample gallery if the database has none (notice: the setup link is logged).
        let a = try Crash.spawn(data: data, port: portA, database: database, extra: ["--log-level", "notice"], log: "a.log", sample: true)
        defer { if a.isRunning { kill(a.processIdentifier, SIGKILL) } }
        let b = try Crash.spawn(data: data, port: portB, database: database, extra: ["--log-level", "notice"], log: "b.log", sample: true)
        defer { if b.isRunning { kill(b.processIdentifier, SIGKILL) } }
        for port in [portA, portB] { try await Self.waitAnswering(port) }

        let store = try GalleryStore(folder: data, databaseURL: database)
        let names = try await store.listGalleries().map(\.name)
        #expect(names == ["Sample gallery"], "one sample: \(names)")

        // Each printed its own link; A's is used on B.
        func token(_ log: String) throws -> String {
            let text = try String(contentsOf: data.appendingPathComponent(log), encoding: .utf8)
            let range = try #require(text.range(of: #"/setup#[A-Za-z0-9_-]+"#, options: .regularExpression), "\(log): \(text)")
            return String(text[range].dropFirst("/setup#".count))
        }
        let (tokenA, tokenB) = (try token("a.log"), try token("b.log"))
        #expect(tokenA != tokenB)
        func setup(_ port: Int, _ token: String, _ name: String) async throws -> (UInt, String) {
            var r = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/setup")
            r.method = .POST
            r.headers.add(name: "Content-Type", value: "application/json")
            r.headers.add(name: "Origin", value: "http://127.0.0.1:\(port)")
            r.body = .bytes(ByteBuffer(string: #"{"token": "\#(token)", "name": "\#(name)", "password": "a good password"}"#))
            let response = try await HTTPClient.shared.execute(r, timeout: .seconds(30))
            return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        let made = try await setup(portB, tokenA, "ana")
        #expect(made.0 == 201, "A's link on B: \(made.1)")
        let second = try await setup(portA, tokenB, "bob")
        #expect(second.0 == 403 && second.1.contains("exists already"), "\(second)")
        #expect(try await store.accounts().map(\.name) == ["ana"])
        for p in [a, b] { p.terminate(); p.waitUntilExit() }
    }

    /// Up once it answers at all (no account exists yet: the API asks for one).
    static func waitAnswering(_ port: Int) async throws {
        for _ in 0..<600 {
            if let r = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz"), timeout: .seconds(2)),
               r.status == .ok { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("server on \(port) did not start")
    }
}
