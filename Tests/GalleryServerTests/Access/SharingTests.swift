import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import AsyncHTTPClient
import HTTPTypes
import GRDB
import ZIPFoundation
import GalleryCore
import GalleryServer
@testable import GalleryStore

/// B8 beyond the matrix: adding people by name, the first start, an older data folder, open
/// streams ended when access ends, the file drop's view and the zip in arranged order.
@Suite struct SharingTests {
    static let sameOrigin = [HTTPField(name: .origin, value: "http://localhost"), HTTPField(name: .contentType, value: "application/json")]

    @Test func anOwnerWhoIsNoAdminAddsPeopleByName() async throws {
        let f = try await AccessFixture.make()
        let store = f.server.store
        let anna = try await store.createAccount(name: "Anna Maria", passwordHash: testPasswordHash, admin: false)
        let olga = f.headers[.stranger]! + Self.sameOrigin // owner of gallery B, not an admin
        try await f.server.application().test(.router) { client in
            let uri = "/api/galleries/\(f.otherGallery)/members/"
            let added = try await client.execute(uri: uri + "Anna%20Maria", method: .put, headers: olga, body: ByteBuffer(string: #"{"role": "editor"}"#))
            #expect(added.status == .ok, "\(String(buffer: added.body))")
            let members = try JSONDecoder().decode([Member].self, from: Data(added.body.readableBytesView))
            #expect(members.contains(Member(user: .init(id: anna.id, name: "Anna Maria"), role: .editor)))
            #expect(try await store.role(account: anna.id, gallery: f.otherGallery) == .editor)
            // Names are case-insensitive like sign-in; an id works as well.
            let byId = try await client.execute(uri: uri + "\(anna.id)", method: .put, headers: olga, body: ByteBuffer(string: #"{"role": "viewer"}"#))
            #expect(byId.status == .ok)
            #expect(try await store.role(account: anna.id, gallery: f.otherGallery) == .viewer)
            let unknown = try await client.execute(uri: uri + "nobody", method: .put, headers: olga, body: ByteBuffer(string: #"{"role": "viewer"}"#))
            #expect(unknown.status == .notFound)
            #expect(message(unknown) == #"unknown user "nobody""#)
            let missingId = try await client.execute(uri: uri + "9999", method: .put, headers: olga, body: ByteBuffer(string: #"{"role": "viewer"}"#))
            #expect(missingId.status == .notFound)
            let removed = try await client.execute(uri: uri + "anna%20maria", method: .delete, headers: olga)
            #expect(removed.status == .noContent)
            #expect(try await store.role(account: anna.id, gallery: f.otherGallery) == nil)
            // Another owner's gallery stays out of reach by name too.
            let foreign = try await client.execute(uri: "/api/galleries/\(f.gallery)/members/Anna%20Maria", method: .put, headers: olga,
                                                   body: ByteBuffer(string: #"{"role": "viewer"}"#))
            #expect(foreign.status == .notFound)
            // A name of digits only would read as an id: refused when the account is made.
            let digits = try await client.execute(uri: "/api/users", method: .post, headers: f.headers[.owner]! + Self.sameOrigin,
                                                  body: ByteBuffer(string: #"{"name": "12345", "password": "long enough"}"#))
            #expect(digits.status.code / 100 == 4)
            #expect(message(digits).contains("digits only"))
            // Nor a name that reads as another's (full-width, a ligature, case) or hides characters.
            for (name, says) in [("ＡＮＮＡ ＭＡＲＩＡ", "reads as"), ("anna\u{FB01}", ""), ("Anna\u{200B} Maria", "invisible"),
                                 ("\u{202E}airam anna", "invisible"), ("anna\u{E000}", "invisible")] {
                let made = try await client.execute(uri: "/api/users", method: .post, headers: f.headers[.owner]! + Self.sameOrigin,
                                                    body: ByteBuffer(data: try JSONEncoder().encode(["name": name, "password": "long enough"])))
                if says.isEmpty {
                    #expect(made.status == .created, "\(name): \(message(made))")
                } else {
                    #expect(made.status.code / 100 == 4 && message(made).contains(says), "\(name): \(message(made))")
                }
            }
            let fi = try await client.execute(uri: "/api/users", method: .post, headers: f.headers[.owner]! + Self.sameOrigin,
                                              body: ByteBuffer(string: #"{"name": "annafi", "password": "long enough"}"#))
            #expect(fi.status.code / 100 == 4 && message(fi).contains("reads as"), "\(message(fi))")
        }
    }

    @Test func theSetupLinkMakesTheFirstAccountOnceAndItOwnsWhatWasThere() async throws {
        let server = try await makeServer()
        let before = try await server.store.createGallery(name: "Holidays")
        let token = try #require(try await server.access.prepareSetup())
        try await server.application().test(.router) { client in
            let session = try await client.execute(uri: "/api/session", method: .get)
            #expect(String(buffer: session.body).contains(#""setup":true"#))
            #expect(try await client.execute(uri: "/api/galleries", method: .get).status == .unauthorized)
            func setup(_ token: String, _ password: String = "a good password") async throws -> TestResponse {
                try await client.execute(uri: "/api/setup", method: .post, headers: HTTPFields(Self.sameOrigin),
                                         body: ByteBuffer(string: #"{"token": "\#(token)", "name": "ana", "password": "\#(password)"}"#))
            }
            #expect(try await setup("not-the-token").status == .forbidden)
            #expect(try await setup(token, "short").status == .unprocessableContent)
            let made = try await setup(token)
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let cookie = try #require(made.headers[.setCookie]).split(separator: ";")[0]
            #expect(made.headers[.setCookie]!.contains("HttpOnly") && made.headers[.setCookie]!.contains("SameSite=Lax"))
            let again = try await setup(token)
            #expect(again.status == .forbidden)
            #expect(message(again).contains("exists already"))
            let list = try await client.execute(uri: "/api/galleries", method: .get, headers: [.cookie: String(cookie)])
            let galleries = try JSONDecoder().decode([GalleryInfo].self, from: Data(list.body.readableBytesView))
            #expect(galleries.map(\.name) == ["Holidays"] && galleries.map(\.role) == ["owner"])
            let account = try #require(try await server.store.account(named: "ana"))
            #expect(account.admin)
            #expect(try await server.store.role(account: account.id, gallery: before.id) == .owner)
            #expect(try await server.access.prepareSetup() == nil)
        }
    }

    /// A data folder of the previous release (schema v2: no accounts) opens with nothing lost,
    /// and the first account owns every gallery in it.
    @Test func anOlderDataFolderUpgradesWithNothingLost() async throws {
        let old = try await makeServer()
        let store = old.store
        var expected: [Int64: [[String]]] = [:]
        var versions: [Int64: Int64] = [:]
        for name in ["Fruit", "Trips"] {
            let g = try await store.createGallery(name: name)
            let section = try await store.snapshot(g.id).sections[0].id
            _ = try await store.apply(gallery: g.id, [.insert((1...5).map { NewItem(title: "\(name) \($0)") }, at: .end(section: section))], payload: "seed")
            let s = try await store.snapshot(g.id)
            expected[g.id] = titles(s)
            versions[g.id] = s.version
        }
        // Back to the v2 schema: the v3 migration only added tables.
        try await store.pool.write { db in
            for table in ["api_token", "session", "link_item", "share_link", "member", "recovery_code", "account"] {
                try db.execute(sql: "DROP TABLE \(table)")
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v3 %'")
        }
        #expect(try await store.pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }.allSatisfy { !$0.hasPrefix("v3") })

        let upgraded = try await GalleryServer(configuration: old.configuration, logger: quietLogger)
        for (id, titles) in expected {
            let s = try await upgraded.store.snapshot(id)
            #expect(GalleryServerTests.titles(s) == titles)
            #expect(s.version == versions[id])
        }
        #expect(try await upgraded.access.prepareSetup() != nil, "no account yet: the setup link is offered")
        let ana = try await upgraded.store.createAccount(name: "ana", passwordHash: testPasswordHash, admin: true, onlyIfFirst: true)
        for id in expected.keys { #expect(try await upgraded.store.role(account: ana.id, gallery: id) == .owner) }
        let bob = try await upgraded.store.createAccount(name: "bob", passwordHash: testPasswordHash, admin: false)
        for id in expected.keys { #expect(try await upgraded.store.role(account: bob.id, gallery: id) == nil) }
    }

    /// Revoking a link, removing a member and signing out everywhere each end an open live
    /// stream at once with a last `revoked` event, over real HTTP. The stream's own periodic
    /// check is off here, so only the immediate path can end them; how soon is measured in
    /// `gallery-bench access` (BENCHMARKS.md), the bound here only says "at once, not by the
    /// heartbeat or the client", with room for a loaded test machine.
    @Test func openStreamsEndAtOnceWhenAccessEnds() async throws {
        let f = try await AccessFixture.make()
        var configuration = f.server.configuration
        configuration.streamAccessRecheck = .seconds(3600)
        let live = try await GalleryServer(configuration: configuration, logger: quietLogger)
        let owner = f.headers[.owner]! + Self.sameOrigin
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            let viaLink = try await StreamWatch.open(port: port, gallery: f.gallery, headers: f.headers[.linkViewer]!)
            let member = try await StreamWatch.open(port: port, gallery: f.gallery, headers: f.headers[.viewer]!)
            let editor = try await StreamWatch.open(port: port, gallery: f.gallery, headers: f.headers[.editor]!)
            let ownerStream = try await StreamWatch.open(port: port, gallery: f.gallery, headers: f.headers[.owner]!)

            // From the moment the revocation is done (its answer) to the end of the stream: the
            // request itself is not part of it (it can take a while on a loaded test machine).
            func ended(_ stream: StreamWatch, after action: () async throws -> TestResponse) async throws -> Duration {
                let r = try await action()
                let revoked = ContinuousClock.now
                #expect(r.status.code / 100 == 2, "\(String(buffer: r.body))")
                return max(.zero, try await stream.waitForEnd(since: revoked))
            }
            let linkEnd = try await ended(viaLink) {
                try await client.execute(uri: "/api/galleries/\(f.gallery)/links/\(f.links[.linkViewer]!.id)", method: .delete, headers: owner)
            }
            #expect(linkEnd < .seconds(5), "revoked link: the stream ended after \(linkEnd)")
            #expect(viaLink.revokedMessage == "this share link was revoked")
            let memberEnd = try await ended(member) {
                try await client.execute(uri: "/api/galleries/\(f.gallery)/members/vera", method: .delete, headers: owner)
            }
            #expect(memberEnd < .seconds(5), "member removed: the stream ended after \(memberEnd)")
            #expect(member.revokedMessage == "your access to this gallery has ended")
            let editorEnd = try await ended(editor) {
                try await client.execute(uri: "/api/logout-everywhere", method: .post, headers: f.headers[.editor]! + Self.sameOrigin, body: ByteBuffer(string: "{}"))
            }
            #expect(editorEnd < .seconds(5), "signed out everywhere: the stream ended after \(editorEnd)")
            // The owner's stream is still open.
            #expect(ownerStream.endedAtWall == nil)
            ownerStream.cancel()
        }
    }

    /// A change made outside this process (`gallery user remove` beside the server, another
    /// instance) is found by the stream's own check, once a second.
    @Test func anAccountRemovedOutsideTheServerEndsItsStream() async throws {
        let f = try await AccessFixture.make()
        let store = f.server.store
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            let carl = try await store.createAccount(name: "carl", passwordHash: testPasswordHash, admin: false)
            try await store.setMember(gallery: f.gallery, account: carl.id, role: .viewer)
            let carlSession = Secrets.token()
            try await store.createSession(idHash: Secrets.digest(carlSession), owner: .account(carl.id))
            let outside = try await StreamWatch.open(port: port, gallery: f.gallery, headers: [.cookie: "gallery_session=\(carlSession)"])
            let removedAt = ContinuousClock.now
            try await store.deleteAccount(carl.id) // in the store, as the CLI does: no in-process notice
            let outsideEnd = try await outside.waitForEnd(since: removedAt)
            #expect(outsideEnd < .seconds(6), "the stream ended after \(outsideEnd)")
            #expect(outside.revokedMessage == "your access to this gallery has ended")
        }
    }

    /// A link's expiry ends its visitor's open stream on time, with a last `revoked` event.
    @Test func aLinksStreamEndsWhenTheLinkExpires() async throws {
        let f = try await AccessFixture.make()
        let store = f.server.store
        let token = Secrets.token()
        let link = try await store.createLink(gallery: f.gallery, createdBy: f.users["owner"], role: .viewer, tokenHash: Secrets.digest(token),
                                              passwordHash: nil, expiresAt: GalleryStoreTestClock.now() + 3600,
                                              options: LinkOptions(allowDownload: false, showMetadata: false))
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            let opened = try await client.execute(uri: "/api/links/open", method: .post, headers: HTTPFields(Self.sameOrigin),
                                                  body: ByteBuffer(string: #"{"token": "\#(token)"}"#))
            #expect(opened.status == .ok)
            let cookie: HTTPFields = [.cookie: String(opened.headers[.setCookie]!.split(separator: ";")[0])]
            // The link now ends a moment from now (as if opened an hour before its end); a loaded
            // machine that takes longer than that to open the stream gets a longer moment.
            for lead in [2.0, 5.0, 15.0] {
                let expiresAt = GalleryStoreTestClock.now() + lead
                try await store.pool.write { db in
                    try db.execute(sql: "UPDATE share_link SET expiresAt = ? WHERE id = ?", arguments: [expiresAt, link.id])
                }
                live.access.accessChanged()
                guard let stream = try? await StreamWatch.open(port: port, gallery: f.gallery, headers: cookie) else { continue }
                _ = try await stream.waitForEnd(since: .now, within: .seconds(lead + 10))
                let end = try #require(stream.endedAtWall)
                #expect(end >= expiresAt - 0.05 && end < expiresAt + 5, "ended \(end - expiresAt) s after the expiry")
                #expect(stream.revokedMessage == "this share link has expired")
                return
            }
            Issue.record("the stream never opened before the link expired")
        }
    }

    @Test func aFileDropVisitorSeesOnlyWhatItsLinkAdded() async throws {
        let f = try await AccessFixture.make()
        let mine: [UInt8] = { var b = AccessFixture.png; b[b.count - 13] ^= 2; return b }()
        let uploader = f.headers[.linkUploader]! + [HTTPField(name: .origin, value: "http://localhost")]
        try await f.server.application().test(.router) { client in
            let up = try await client.execute(uri: "/api/galleries/\(f.gallery)/uploads", method: .post,
                                              headers: uploader + [HTTPField(name: .contentType, value: "multipart/form-data; boundary=gallery-test-boundary")],
                                              body: multipart([("mine.png", mine)]))
            #expect(up.status == .created, "\(String(buffer: up.body))")
            let list = try await client.execute(uri: "/api/links/uploads", method: .get, headers: uploader)
            let items = try JSONDecoder().decode([ItemJSON].self, from: Data(list.body.readableBytesView))
            #expect(items.map(\.title) == ["mine.png"])
            // The grid, the owner's photo and the stream stay closed to it.
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .get, headers: uploader).status == .forbidden)
            #expect(try await client.execute(uri: "/api/images/\(f.hash)/original", method: .get, headers: uploader).status.code / 100 == 4)
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)/events", method: .get, headers: uploader).status == .forbidden)
            // The owner sees the file arrive in the gallery.
            let grid = try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .get, headers: f.headers[.owner]!)
            #expect(String(buffer: grid.body).contains("mine.png"))
        }
    }

    @Test func theZipHoldsTheOriginalsInTheArrangedOrder() async throws {
        let f = try await AccessFixture.make()
        let store = f.server.store
        let section = try await store.snapshot(f.gallery).sections[0].id
        var bytes: [String: [UInt8]] = ["Apple": AccessFixture.png]
        var ids: [String: Int64] = ["Apple": f.item]
        for (n, title) in ["Banana", "Cherry"].enumerated() {
            var b = AccessFixture.png; b[b.count - 13] ^= UInt8(4 << n)
            let hash = try store.files.storeOriginal(b)
            bytes[title] = b
            ids[title] = try await store.apply(gallery: f.gallery, [.insert([NewItem(title: "\(title).png", fileHash: hash, width: 1, height: 1, state: .ready)],
                                                                            at: .end(section: section))], payload: "seed").createdItems[0]
        }
        let owner = f.headers[.owner]! + Self.sameOrigin
        let (ids_, bytes_) = (ids, bytes)
        try await f.server.application().test(.router) { client in
            let ids = ids_, bytes = bytes_
            // Cherry to the front, Banana to the trash: Cherry, Apple.
            let batch = try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post, headers: owner, body: ByteBuffer(string: ops(
                #"{"op": "move", "items": [\#(ids["Cherry"]!)], "to": {"section": \#(section), "index": 0}}, {"op": "trash", "items": [\#(ids["Banana"]!)]}"#)))
            #expect(batch.status == .ok, "\(String(buffer: batch.body))")
            let zip = try await client.execute(uri: "/api/galleries/\(f.gallery)/download", method: .get, headers: owner)
            #expect(zip.status == .ok && zip.headers[.contentType] == "application/zip")
            let archive = try Archive(data: Data(zip.body.readableBytesView), accessMode: .read)
            let entries = Array(archive)
            #expect(entries.map(\.path) == ["0001-Cherry.png", "0002-Apple.png"])
            for (entry, title) in zip2(entries, ["Cherry", "Apple"]) {
                var data = Data()
                _ = try archive.extract(entry) { data.append($0) }
                #expect([UInt8](data) == bytes[title], "\(entry.path) is the original")
            }
            // A link without downloads: refused.
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)/download", method: .get, headers: f.headers[.linkEditor]!).status == .forbidden)
        }
    }
}

struct StreamRefused: Error { var status: Int }

private func zip2<A, B>(_ a: [A], _ b: [B]) -> Zip2Sequence<[A], [B]> { zip(a, b) }

/// An open `GET /events` over real HTTP with a browser's cookie: the events' kinds, the
/// message of a `revoked` event and when the server ended the stream.
final class StreamWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var _revoked: String?
    private var _endedAt: ContinuousClock.Instant?
    private var _endedAtWall: Double?
    private var task: Task<Void, Never>?

    var revokedMessage: String? { lock.withLock { _revoked } }
    var endedAtWall: Double? { lock.withLock { _endedAtWall } }

    static func open(port: Int, gallery: Int64, headers: HTTPFields) async throws -> StreamWatch {
        var request = HTTPClientRequest(url: "http://localhost:\(port)/api/galleries/\(gallery)/events")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        guard response.status == .ok else { throw StreamRefused(status: Int(response.status.code)) }
        let watch = StreamWatch()
        watch.task = Task {
            var buffer = ""
            do {
                for try await chunk in response.body {
                    buffer += String(buffer: chunk)
                    while let end = buffer.range(of: "\n\n") {
                        let block = String(buffer[..<end.lowerBound])
                        buffer.removeSubrange(..<end.upperBound)
                        if block.hasPrefix("event: revoked"), let data = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }) {
                            let message = (try? JSONDecoder().decode([String: String].self, from: Data(data.dropFirst(6).utf8)))?["message"]
                            watch.lock.withLock { watch._revoked = message }
                        }
                    }
                }
            } catch {}
            watch.lock.withLock {
                watch._endedAt = .now
                watch._endedAtWall = Date().timeIntervalSince1970
            }
        }
        return watch
    }

    /// Waits for the server to end the stream; the time from `since` to its end.
    func waitForEnd(since: ContinuousClock.Instant, within: Duration = .seconds(10)) async throws -> Duration {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if let end = lock.withLock({ _endedAt }) { return end - since }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    func cancel() { task?.cancel() }
}
