import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import GalleryCore
import GalleryServer
import GalleryStore
import GRDB

/// Who asks, in the authorization matrix (issue 10's list).
enum Subject: String, CaseIterable, Sendable {
    case anonymous, owner, editor, viewer, stranger
    case linkViewer, linkEditor, linkUploader, linkWrongPassword, linkExpired, linkRevoked
    case sessionRevoked, readToken
}

/// One server with gallery A (owner "owner", editor "ed", viewer "vera"), gallery B of the
/// stranger "olga", share links of every kind and the credentials of every subject. Sessions
/// and tokens are made in the store (no bcrypt per subject); links are opened through the API.
struct AccessFixture {
    let server: GalleryServer
    var gallery: Int64 = 0, otherGallery: Int64 = 0
    var item: Int64 = 0, section: Int64 = 0, hash = "", otherHash = ""
    var users: [String: Int64] = [:]
    var headers: [Subject: HTTPFields] = [:]
    var links: [Subject: (id: Int64, token: String)] = [:]
    var readTokenId: Int64 = 0

    static let png: [UInt8] = {
        // A 1×1 PNG: real bytes the image routes can serve and sniff.
        Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!)
    }()

    static func make() async throws -> AccessFixture {
        let server = try await makeServer { c in
            try? FileManager.default.createDirectory(at: c.webFolder, withIntermediateDirectories: true)
            try? Data("<!doctype html><title>page</title>".utf8).write(to: c.webFolder.appendingPathComponent("index.html"))
            c.wasmPath = c.dataFolder.appendingPathComponent("engine.wasm")
            try? Data([0, 0x61, 0x73, 0x6d]).write(to: c.wasmPath)
            try? Data("export const protocolVersion = 0;".utf8).write(to: c.dataFolder.appendingPathComponent("protocol.js"))
            try? Data("const __app = (() => {})();".utf8).write(to: c.dataFolder.appendingPathComponent("page.js"))
        }
        var f = AccessFixture(server: server)
        let store = server.store
        for name in ["owner", "ed", "vera", "olga"] {
            f.users[name] = try await store.createAccount(name: name, passwordHash: testPasswordHash, admin: name == "owner").id
        }
        let a = try await store.createGallery(name: "A", owner: f.users["owner"])
        let b = try await store.createGallery(name: "B", owner: f.users["olga"])
        f.gallery = a.id; f.otherGallery = b.id
        try await store.setMember(gallery: a.id, account: f.users["ed"]!, role: .editor)
        try await store.setMember(gallery: a.id, account: f.users["vera"]!, role: .viewer)
        f.hash = try store.files.storeOriginal(png)
        try store.files.write(png, f.hash, "grid.jpg")
        let section = try await store.snapshot(a.id).sections[0].id
        f.section = section
        f.item = try await store.apply(gallery: a.id, [.insert([NewItem(title: "Apple", fileHash: f.hash, width: 1, height: 1, state: .ready)], at: .end(section: section))], payload: "seed").createdItems[0]
        var other = png; other[other.count - 13] ^= 1 // a different image for B (bytes differ, still a file)
        f.otherHash = try store.files.storeOriginal(other)
        try store.files.write(other, f.otherHash, "grid.jpg")
        let bSection = try await store.snapshot(b.id).sections[0].id
        _ = try await store.apply(gallery: b.id, [.insert([NewItem(title: "Secret", fileHash: f.otherHash, width: 1, height: 1, state: .ready)], at: .end(section: bSection))], payload: "seed")

        func session(_ account: String) async throws -> HTTPFields {
            let id = Secrets.token()
            try await store.createSession(idHash: Secrets.digest(id), owner: .account(f.users[account]!))
            return [.cookie: "gallery_session=\(id)"]
        }
        f.headers[.anonymous] = [:]
        f.headers[.owner] = try await session("owner")
        f.headers[.editor] = try await session("ed")
        f.headers[.viewer] = try await session("vera")
        f.headers[.stranger] = try await session("olga")
        let revoked = try await session("owner")
        try await store.deleteSession(idHash: Secrets.digest(String(revoked[.cookie]!.dropFirst("gallery_session=".count))))
        f.headers[.sessionRevoked] = revoked
        let readToken = "gat_read_" + Secrets.token()
        f.readTokenId = try await store.createToken(account: f.users["owner"]!, name: "read", scope: .read, tokenHash: Secrets.digest(readToken)).id
        f.headers[.readToken] = [.authorization: "Bearer \(readToken)"]

        // Links, opened through the API as a visitor's browser would.
        let kinds: [(Subject, LinkRole, String?, LinkOptions)] = [
            (.linkViewer, .viewer, nil, LinkOptions(allowDownload: true, showMetadata: true)),
            (.linkEditor, .editor, nil, LinkOptions(allowDownload: false, showMetadata: false)),
            (.linkUploader, .uploader, nil, LinkOptions(allowDownload: false, showMetadata: false)),
            (.linkWrongPassword, .viewer, "the right one", LinkOptions(allowDownload: false, showMetadata: false)),
            (.linkExpired, .viewer, nil, LinkOptions(allowDownload: false, showMetadata: false)),
            (.linkRevoked, .viewer, nil, LinkOptions(allowDownload: false, showMetadata: false)),
        ]
        var made: [(Subject, Int64, String)] = []
        for (subject, role, password, options) in kinds {
            let token = Secrets.token()
            let link = try await store.createLink(gallery: a.id, createdBy: f.users["owner"], role: role, tokenHash: Secrets.digest(token),
                                                  passwordHash: password == nil ? nil : testPasswordHash, expiresAt: GalleryStoreTestClock.now() + 3600, options: options)
            made.append((subject, link.id, token))
            f.links[subject] = (link.id, token)
        }
        let toOpen = made
        let opened = try await server.application().test(.router) { client in
            var cookies: [Subject: HTTPFields] = [:]
            for (subject, _, token) in toOpen {
                let body = subject == .linkWrongPassword ? #"{"token": "\#(token)", "password": "wrong"}"# : #"{"token": "\#(token)"}"#
                let r = try await client.execute(uri: "/api/links/open", method: .post, headers: [.contentType: "application/json", .origin: "http://localhost"],
                                                 body: ByteBuffer(string: body))
                if subject == .linkWrongPassword {
                    precondition(r.status == .unauthorized, "a wrong link password must be refused: \(r.status)")
                    cookies[subject] = [:] // the browser got no session
                    continue
                }
                precondition(r.status == .ok, "opening a link: \(r.status) \(String(buffer: r.body))")
                cookies[subject] = [.cookie: String(r.headers[.setCookie]!.split(separator: ";")[0])]
            }
            return cookies
        }
        for (k, v) in opened { f.headers[k] = v }
        let expired = f.links[.linkExpired]!.id
        try await store.pool.write { db in
            try db.execute(sql: "UPDATE share_link SET expiresAt = ? WHERE id = ?", arguments: [GalleryStoreTestClock.now() - 1, expired])
        }
        _ = try await store.revokeLink(f.links[.linkRevoked]!.id, gallery: a.id)
        return f
    }

    /// Everything a denied request could have changed: the row counts of every table, versions and names.
    func digest() async throws -> String {
        try await server.store.pool.read { db in
            var parts: [String] = []
            for table in ["gallery", "section", "item", "operation", "account", "member", "share_link", "session", "api_token", "recovery_code", "link_item"] {
                parts.append("\(table)=\(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1)")
            }
            parts += try String.fetchAll(db, sql: "SELECT id || ':' || name || ':' || version FROM gallery ORDER BY id")
            parts += try String.fetchAll(db, sql: "SELECT id || ':' || title || ':' || trashed FROM item ORDER BY id")
            parts += try String.fetchAll(db, sql: "SELECT id || ':' || passwordHash || ':' || IFNULL(totpPending, '') FROM account ORDER BY id")
            parts += try String.fetchAll(db, sql: "SELECT id || ':' || IFNULL(revokedAt, '') FROM share_link ORDER BY id")
            return parts.joined(separator: "|")
        }
    }
}

enum GalleryStoreTestClock { static func now() -> Double { Date().timeIntervalSince1970 } }
