import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import GalleryCore
import GalleryServer
import GalleryStore
import HummingbirdBcrypt
import StoreTestSupport

/// Every test folder lives under one root that each run of the suite empties first, so runs do
/// not pile up data folders in /tmp.
let testRoot: URL = {
    // One folder per test process under a shared base: runs from several worktrees may go on at
    // the same time on one machine, so a run removes only the folders of processes that ended.
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-server-tests.by-process")
    try? FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] {
        guard let pid = Int32(entry), pid != getpid() else { continue }
        if kill(pid, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(at: base.appendingPathComponent(entry)) }
    }
    let root = base.appendingPathComponent("\(getpid())")
    try? FileManager.default.removeItem(at: root)
    try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
}()

func testFolder(_ name: String) -> URL { testRoot.appendingPathComponent("\(name)-\(UUID().uuidString)") }

/// A configuration on a fresh temporary data folder, with small limits so the refusal paths are cheap to reach.
func testConfiguration(allowPrivate: Bool = true) -> ServerConfiguration {
    var c = ServerConfiguration()
    c.dataFolder = testFolder("server")
    c.webFolder = c.dataFolder.appendingPathComponent("web")
    c.allowPrivateAddresses = allowPrivate
    c.createSampleGallery = false
    c.maxFetchBytes = 1 << 20
    c.maxUploadBytes = 2 << 20
    c.maxPixels = 10_000_000
    c.fetchTimeout = .seconds(60) // a loaded parallel run took over 3 s for a redirect loop; the timeout case sets its own
    // HummingbirdTesting's live client holds one connection it cannot reopen: a test that leaves
    // it unused for the server's 60 s (B2's four clients on PostgreSQL, ~125 s in a loaded run)
    // would find it closed. IdleTimeoutTests sets its own.
    c.idleTimeout = .seconds(3600)
    return c
}

let quietLogger: Logger = {
    var l = Logger(label: "gallery-test")
    l.logLevel = .warning
    return l
}()

/// A server on a fresh data folder; its rows in SQLite there, or in a new PostgreSQL database.
func makeServer(_ backend: Backend = .sqlite, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> GalleryServer {
    var c = testConfiguration()
    c.databaseURL = try await backend.databaseURL()
    configure(&c)
    return try await GalleryServer(configuration: c, logger: quietLogger)
}

extension TestClientProtocol {
    func json<T: Decodable>(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, as: T.Type = T.self,
                            status: HTTPResponse.Status = .ok, sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        let r = try await execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) })
        #expect(r.status == status, "\(method) \(uri): \(String(buffer: r.body))", sourceLocation: sourceLocation)
        return try JSONDecoder().decode(T.self, from: Data(r.body.readableBytesView))
    }

    /// The JSON error of a refused request, after checking its status.
    func error(_ method: HTTPRequest.Method, _ uri: String, _ body: String? = nil, status: HTTPResponse.Status,
               sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let r = try await execute(uri: uri, method: method, headers: [.contentType: "application/json"], body: body.map { ByteBuffer(string: $0) })
        #expect(r.status == status, "\(method) \(uri): \(String(buffer: r.body))", sourceLocation: sourceLocation)
        let e = try JSONDecoder().decode(ErrorBody.self, from: Data(r.body.readableBytesView))
        #expect(e.error.status == Int(status.code), sourceLocation: sourceLocation)
        return e.error.message
    }

    func snapshot(_ gallery: Int64) async throws -> GallerySnapshotJSON { try await json(.get, "/api/galleries/\(gallery)") }

    func newGallery(_ name: String = "Test") async throws -> GallerySnapshotJSON {
        let g: GalleryInfo = try await json(.post, "/api/galleries", #"{"name": "\#(name)"}"#, status: .created)
        return try await snapshot(g.id)
    }

    /// Waits until ingestion has settled the item (ready or failed); 60 s by default: ingestion runs
    /// niced, and a loaded parallel run on two cores can hold it back for a long while.
    func settled(_ item: Int64, timeout: Duration = .seconds(60)) async throws -> ItemJSON {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            let i: ItemJSON = try await json(.get, "/api/items/\(item)")
            if i.state != .pending || clock.now > deadline { return i }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    func dropURL(_ gallery: Int64, _ url: String, to: String? = nil) async throws -> ItemJSON {
        let body = to.map { #"{"url": "\#(url)", "to": \#($0)}"# } ?? #"{"url": "\#(url)"}"#
        let created: CreatedItems = try await json(.post, "/api/galleries/\(gallery)/urls", body, status: .accepted)
        return created.items[0]
    }
}

struct ErrorBody: Decodable {
    struct Inner: Decodable { var status: Int; var message: String }
    var error: Inner
}

struct CreatedItems: Decodable { var version: Int64; var items: [ItemJSON] }

struct BatchAnswer: Decodable {
    var version: Int64
    var changes: ChangesJSON
    var createdItems: [Int64]
    var createdSections: [Int64]
    var rowsWritten: Int
}

func ops(_ json: String, base: Int64? = nil) -> String {
    base.map { #"{"baseVersion": \#($0), "operations": [\#(json)]}"# } ?? #"{"operations": [\#(json)]}"#
}

func titles(_ s: GallerySnapshotJSON) -> [[String]] { s.sections.map { $0.items.map(\.title) } }

// MARK: Signed in (B8): every request of the existing suites acts as the gallery's owner.

/// A test client that sends an identity's headers (a bearer token or a session cookie with
/// the same-origin headers a browser sends) with every request, unless the request sets its own.
struct SignedInClient: TestClientProtocol {
    let base: any TestClientProtocol
    let headers: HTTPFields

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var h = headers
        for f in self.headers where h[f.name] == nil { h.append(f) }
        // A real client names its body's type (the server refuses an unnamed one).
        if body != nil && h[.contentType] == nil { h[.contentType] = "application/json" }
        return try await base.executeRequest(uri: uri, method: method, headers: h, body: body)
    }

    var port: Int? { base.port }
}

/// An owner account and a write token made straight in the store (no bcrypt round per test).
struct TestOwner {
    var account: Account
    var token: String
    var headers: HTTPFields { [.authorization: "Bearer \(token)"] }
}

/// The owner's write token in every test data folder (tests that speak HTTP themselves send it).
let testOwnerToken = "gat_test_owner_token"
let testOwnerAuthorization = "Bearer \(testOwnerToken)"

/// bcrypt of "test password" at cost 4: verifies like any other hash, costs nothing.
let testPasswordHash = Bcrypt.hash("test password", cost: 4)

extension GalleryServer {
    /// The owner of the test data (the first account: an admin who owns every gallery).
    func owner() async throws -> TestOwner {
        let account: Account
        if let existing = try await store.account(named: "owner") { account = existing } else {
            account = try await store.createAccount(name: "owner", passwordHash: testPasswordHash, admin: true)
        }
        if try await store.token(hash: Secrets.digest(testOwnerToken)) == nil {
            _ = try await store.createToken(account: account.id, name: "tests", scope: .write, tokenHash: Secrets.digest(testOwnerToken))
        }
        return TestOwner(account: account, token: testOwnerToken)
    }

    /// Runs the application's test client signed in as the owner.
    func test<Value>(_ framework: TestingSetup, _ body: @Sendable (SignedInClient) async throws -> Value) async throws -> Value {
        let owner = try await owner()
        return try await application().test(framework) { client in
            try await body(SignedInClient(base: client, headers: owner.headers))
        }
    }
}

/// The owner and its token in a data folder, for tests that start the `gallery` binary themselves.
func seedOwner(folder: URL, database: String? = nil) async throws {
    let store = try GalleryStore(folder: folder, databaseURL: database)
    defer { try? store.close() } // its listening connection too (it outlived a test's own PostgreSQL cluster once)
    var account = try await store.account(named: "owner")
    if account == nil { account = try await store.createAccount(name: "owner", passwordHash: testPasswordHash, admin: true) }
    if try await store.token(hash: Secrets.digest(testOwnerToken)) == nil {
        _ = try await store.createToken(account: account!.id, name: "tests", scope: .write, tokenHash: Secrets.digest(testOwnerToken))
    }
}
