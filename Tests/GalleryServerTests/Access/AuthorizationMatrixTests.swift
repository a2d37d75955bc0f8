import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import GalleryCore
import GalleryServer
import GalleryStore

/// Issue 10's authorization matrix: every route the router registers (enumerated from the
/// router itself, so a new route without a row here fails) × every kind of caller → the
/// status written below. Requests that must change nothing are checked to change nothing.
@Suite(.serialized) struct AuthorizationMatrixTests {
    /// Expected statuses in `Subject.allCases` order:
    /// anonymous owner editor viewer stranger | linkViewer linkEditor linkUploader linkWrongPassword
    /// linkExpired linkRevoked | sessionRevoked readToken
    static let expected: [String: String] = [
        "GET /engine.wasm":                               "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /js/protocol.js":                            "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /js/page.js":                                "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /":                                          "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /index.html":                                "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /setup":                                     "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /s/{token}":                                 "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /healthz":                                   "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /readyz":                                    "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /metrics":                                   "401 200 403 403 403  403 403 403 401 401 401  401 200",
        "GET /api/openapi.json":                          "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "GET /api/session":                               "200 200 200 200 200  200 200 200 200 200 200  200 200",
        "POST /api/setup":                                "403 403 403 403 403  403 403 403 403 403 403  403 403",
        "POST /api/login":                                "200 200 200 200 200  200 200 200 200 200 200  200 403",
        "POST /api/logout":                               "204 204 204 204 204  204 204 204 204 204 204  204 403",
        "POST /api/logout-everywhere":                    "401 204 204 204 204  403 403 403 401 401 401  401 403",
        "GET /api/users":                                 "401 200 403 403 403  403 403 403 401 401 401  401 200",
        "POST /api/users":                                "401 201 403 403 403  403 403 403 401 401 401  401 403",
        "PATCH /api/users/{user}":                        "401 200 403 403 403  403 403 403 401 401 401  401 403",
        "DELETE /api/users/{user}":                       "401 204 403 403 403  403 403 403 401 401 401  401 403",
        "POST /api/me/totp":                              "401 200 200 200 200  403 403 403 401 401 401  401 403",
        "POST /api/me/totp/confirm":                      "401 409 409 409 409  403 403 403 401 401 401  401 403",
        "DELETE /api/me/totp":                            "401 204 204 204 204  403 403 403 401 401 401  401 403",
        "GET /api/tokens":                                "401 200 200 200 200  403 403 403 401 401 401  401 403",
        "POST /api/tokens":                               "401 201 201 201 201  403 403 403 401 401 401  401 403",
        "DELETE /api/tokens/{token}":                     "401 204 404 404 404  403 403 403 401 401 401  401 403",
        "GET /api/galleries":                             "401 200 200 200 200  200 200 200 401 401 401  401 200",
        // The list's live stream: ?since=999 is ahead of the list's version (422, after the rule: no endless stream).
        "GET /api/galleries/events":                      "401 422 422 422 422  422 422 422 401 401 401  401 422",
        "POST /api/galleries":                            "401 201 201 201 201  403 403 403 401 401 401  401 403",
        "POST /api/galleries/import":                     "401 422 422 422 422  403 403 403 401 401 401  401 403",
        "GET /api/galleries/{gallery}":                   "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/galleries/{gallery}/columns":           "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/galleries/{gallery}/changes":           "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/galleries/{gallery}/events":            "401 422 422 422 404  422 422 403 401 401 401  401 422",
        "PATCH /api/galleries/{gallery}":                 "401 200 403 403 404  403 403 403 401 401 401  401 403",
        "DELETE /api/galleries/{gallery}":                "401 204 403 403 404  403 403 403 401 401 401  401 403",
        "POST /api/galleries/{gallery}/duplicate":        "401 201 201 403 404  403 403 403 401 401 401  401 403",
        "GET /api/galleries/{gallery}/export":            "401 200 200 403 404  403 403 403 401 401 401  401 200",
        "GET /api/galleries/{gallery}/download":          "401 200 200 200 404  200 403 403 401 401 401  401 200",
        "GET /api/galleries/{gallery}/trash":             "401 200 200 403 404  403 200 403 401 401 401  401 200",
        "POST /api/galleries/{gallery}/batch":            "401 200 200 403 404  403 200 403 401 401 401  401 403",
        // ?by=captured: the editor link hides metadata, so it may arrange but not sort by capture date.
        "GET /api/galleries/{gallery}/sections/{section}/order": "401 200 200 403 404  403 403 403 401 401 401  401 200",
        "POST /api/galleries/{gallery}/urls":             "401 202 202 403 404  403 202 202 401 401 401  401 403",
        "POST /api/galleries/{gallery}/uploads":          "401 201 201 403 404  403 201 201 401 401 401  401 403",
        "GET /api/items/{item}":                          "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/items/{item}/metadata":                 "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/items/{item}/image/{name}":             "401 200 200 200 404  200 200 403 401 401 401  401 200",
        "GET /api/images/{hash}/{name}":                  "401 200 200 200 404  200 200 404 401 401 401  401 200",
        "GET /api/galleries/{gallery}/members":           "401 200 403 403 404  403 403 403 401 401 401  401 200",
        "PUT /api/galleries/{gallery}/members/{user}":    "401 200 403 403 404  403 403 403 401 401 401  401 403",
        "DELETE /api/galleries/{gallery}/members/{user}": "401 204 403 403 404  403 403 403 401 401 401  401 403",
        "GET /api/galleries/{gallery}/links":             "401 200 403 403 404  403 403 403 401 401 401  401 200",
        "POST /api/galleries/{gallery}/links":            "401 201 403 403 404  403 403 403 401 401 401  401 403",
        "DELETE /api/galleries/{gallery}/links/{link}":   "401 204 403 403 404  403 403 403 401 401 401  401 403",
        "POST /api/links/open":                           "200 200 200 200 200  200 200 200 200 200 200  200 403",
        "GET /api/links/uploads":                         "401 403 403 403 403  403 403 200 401 401 401  401 403",
    ]

    /// A concrete request for a route of the fixture: path with its captures filled, and a body.
    static func request(_ route: String, _ f: AccessFixture) -> (method: HTTPRequest.Method, uri: String, contentType: String?, body: ByteBuffer?) {
        let parts = route.split(separator: " ", maxSplits: 1)
        let method = HTTPRequest.Method(rawValue: String(parts[0]))!
        var path = String(parts[1])
        let user = route.contains("members") ? (route.hasPrefix("PUT") ? f.users["olga"]! : f.users["vera"]!) : f.users["vera"]!
        let values: [String: String] = [
            "{gallery}": "\(f.gallery)", "{section}": "\(f.section)", "{item}": "\(f.item)", "{hash}": f.hash, "{name}": "grid.jpg", "{user}": "\(user)",
            "{token}": route.hasPrefix("GET /s/") ? f.links[.linkViewer]!.token : "\(f.readTokenId)", "{link}": "\(f.links[.linkViewer]!.id)",
        ]
        for (k, v) in values { path = path.replacingOccurrences(of: k, with: v) }
        if route.hasSuffix("/changes") { path += "?since=0" }
        if route.hasSuffix("/order") { path += "?by=captured" }
        if route.hasSuffix("/events") { path += "?since=999" } // after the rule: 422, no endless stream
        let json: String? = switch route {
        case "POST /api/setup": #"{"token": "not the token", "name": "eve", "password": "a long password"}"#
        case "POST /api/login": #"{"name": "owner", "password": "test password"}"#
        case "POST /api/users": #"{"name": "newcomer", "password": "a long password"}"#
        case "PATCH /api/users/{user}": #"{"password": "another long password"}"#
        case "POST /api/me/totp/confirm": #"{"code": "000000"}"#
        case "DELETE /api/me/totp", "POST /api/me/totp": #"{"password": "test password"}"#
        case "POST /api/tokens": #"{"name": "script", "scope": "write"}"#
        case "POST /api/galleries", "PATCH /api/galleries/{gallery}": #"{"name": "Renamed"}"#
        case "POST /api/galleries/{gallery}/batch": #"{"operations": [{"op": "renameItem", "item": \#(f.item), "title": "Pear"}]}"#
        case "POST /api/galleries/{gallery}/urls": #"{"url": "http://127.0.0.1:9/x.jpg"}"#
        case "PUT /api/galleries/{gallery}/members/{user}": #"{"role": "viewer"}"#
        case "POST /api/galleries/{gallery}/links": #"{"role": "viewer"}"#
        case "POST /api/links/open": #"{"token": "\#(f.links[.linkViewer]!.token)"}"#
        default: nil
        }
        if let json { return (method, path, "application/json", ByteBuffer(string: json)) }
        if route == "POST /api/galleries/import" { return (method, path, "application/zip", ByteBuffer(string: "not a zip")) }
        if route.hasSuffix("/uploads") {
            let body = "--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"dot.png\"\r\nContent-Type: image/png\r\n\r\n"
            var buffer = ByteBuffer(string: body)
            buffer.writeBytes(AccessFixture.png)
            buffer.writeString("\r\n--b--\r\n")
            return (method, path, "multipart/form-data; boundary=b", buffer)
        }
        return (method, path, nil, nil)
    }

    static func headers(_ subject: Subject, _ f: AccessFixture, unsafe: Bool, contentType: String?) -> HTTPFields {
        var h = f.headers[subject] ?? [:]
        // A browser names its own origin on every write; a script's bearer token needs none.
        if unsafe && h[.authorization] == nil { h[.origin] = "http://localhost" }
        if let contentType { h[.contentType] = contentType }
        return h
    }

    @Test func everyRouteHasARuleAndEveryCallerGetsWhatTheRulesSay() async throws {
        let shared = try await AccessFixture.make()
        let routes = shared.server.router().routes.map { "\($0.method) \($0.path)" }
        // A new route fails here until it has an access rule and a row of expectations.
        for route in routes {
            let parts = route.split(separator: " ", maxSplits: 1)
            #expect(AccessRules.rule(method: String(parts[0]), path: String(parts[1])) != nil, "no access rule for \(route)")
            #expect(Self.expected[route] != nil, "no expected statuses for \(route)")
        }
        #expect(Set(routes) == Set(Self.expected.keys), "routes without a row or rows without a route: \(Set(routes).symmetricDifference(Self.expected.keys).sorted())")

        var failures: [String] = []
        for route in routes.sorted() {
            guard let row = Self.expected[route] else { continue }
            let codes = row.split(separator: " ").map { Int($0)! }
            #expect(codes.count == Subject.allCases.count, "\(route): \(codes.count) codes")
            for (subject, code) in zip(Subject.allCases, codes) {
                let r = Self.request(route, shared)
                // A write that is allowed runs on a fixture of its own; everything else shares
                // one, which must come out unchanged.
                let changes = (200..<300).contains(code) && !r.method.isSafeForTests
                let f = changes ? try await AccessFixture.make() : shared
                let fr = Self.request(route, f)
                let before = changes ? "" : try await f.digest()
                let status = try await f.server.application().test(.router) { client in
                    try await client.execute(uri: fr.uri, method: fr.method, headers: Self.headers(subject, f, unsafe: !fr.method.isSafeForTests, contentType: fr.contentType),
                                             body: fr.body).status.code
                }
                if Int(status) != code { failures.append("\(route) as \(subject): \(status), expected \(code)") }
                if fr.method == .get {
                    // HEAD wherever GET is, under GET's rule, with no body.
                    let head = try await f.server.application().test(.router) { client in
                        try await client.execute(uri: fr.uri, method: .head, headers: Self.headers(subject, f, unsafe: false, contentType: nil))
                    }
                    // The streams' rows ask from a version ahead of the gallery (422, so that no
                    // stream opens); a stream's HEAD opens none and reads no catch-up point.
                    let expectedHead = code == 422 && route.hasSuffix("/events") ? 200 : code
                    if Int(head.status.code) != expectedHead || head.body.readableBytes != 0 {
                        failures.append("HEAD of \(route) as \(subject): \(head.status.code) with \(head.body.readableBytes) bytes, expected \(expectedHead)")
                    }
                }
                if !changes, try await f.digest() != before { failures.append("\(route) as \(subject) changed the data (\(status))") }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) cells differ:\n\(failures.joined(separator: "\n"))")
    }

    /// A trashed item is there only for those who see the trash: by item id as by its image's hash,
    /// a viewer (member or link) gets 404 for it, its images and its metadata; owners, editors and
    /// editor links still get it (the trash view shows it).
    @Test func aTrashedItemIsGoneForThoseWhoDoNotSeeTheTrash() async throws {
        let f = try await AccessFixture.make()
        _ = try await f.server.store.apply(gallery: f.gallery, [.trash(items: [f.item])])
        let seesTrash: [Subject: Bool] = [.owner: true, .editor: true, .linkEditor: true, .readToken: true, .viewer: false, .linkViewer: false]
        try await f.server.application().test(.router) { client in
            for (subject, sees) in seesTrash {
                for uri in ["/api/items/\(f.item)", "/api/items/\(f.item)/metadata", "/api/items/\(f.item)/image/grid.jpg",
                            "/api/images/\(f.hash)/grid.jpg"] {
                    let status = try await client.execute(uri: uri, method: .get, headers: Self.headers(subject, f, unsafe: false, contentType: nil)).status.code
                    #expect(status == (sees ? 200 : 404), "\(uri) as \(subject): \(status)")
                }
            }
        }
    }

    /// Originals by hash and by item: a link that does not allow downloads gets neither, while
    /// its grid images stay visible.
    @Test func originalsFollowTheLinksDownloadOption() async throws {
        let f = try await AccessFixture.make()
        let expected: [(Subject, String, UInt)] = [
            (.owner, "original", 200), (.linkViewer, "original", 200), (.linkEditor, "original", 403), (.linkEditor, "grid.jpg", 200),
        ]
        try await f.server.application().test(.router) { client in
            for (subject, name, code) in expected {
                for uri in ["/api/images/\(f.hash)/\(name)", "/api/items/\(f.item)/image/\(name)"] {
                    let status = try await client.execute(uri: uri, method: .get, headers: Self.headers(subject, f, unsafe: false, contentType: nil)).status.code
                    #expect(status == code, "\(uri) as \(subject)")
                }
            }
        }
    }
}

extension HTTPRequest.Method {
    var isSafeForTests: Bool { self == .get || self == .head }
}
