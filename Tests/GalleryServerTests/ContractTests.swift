import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import HTTPTypes
import GalleryCore
import GalleryServer
import GalleryStore

/// The OpenAPI contract (issue 14): it names every route the router has and nothing else, it is
/// served to anyone, and every reference in it resolves. schemathesis checks the rest against a
/// live server (Tests/contract/fuzz.py); the server bugs it found have their tests here too.
@Suite struct ContractTests {
    @Test func theDocumentNamesEveryRouteAndNoOther() async throws {
        let server = try await makeServer()
        let routes = Set(server.router().routes.map { "\($0.method) \($0.path)" })
        let documented = Set(OpenAPIDocument.routes)
        #expect(routes.subtracting(documented).isEmpty, "routes the document lacks: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented routes the server lacks: \(documented.subtracting(routes).sorted())")
        #expect(OpenAPIDocument.routes.count == documented.count, "an operation documented twice")
    }

    @Test func theDocumentIsServedToAnyoneAndItsReferencesResolve() async throws {
        let server = try await makeServer()
        let served = try await server.application().test(.router) { client in
            try await client.execute(uri: "/api/openapi.json", method: .get)
        }
        #expect(served.status == .ok)
        #expect(served.headers[.contentType]?.hasPrefix("application/json") == true)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(buffer: served.body)) as? [String: Any])
        #expect(doc["openapi"] as? String == "3.1.0")
        let paths = try #require(doc["paths"] as? [String: [String: Any]])
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        // Every $ref names a schema that exists; every operation declares its errors with the Error shape.
        var refs: [String] = []
        func walk(_ v: Any) {
            if let d = v as? [String: Any] {
                if let r = d["$ref"] as? String { refs.append(r) }
                d.values.forEach(walk)
            } else if let a = v as? [Any] { a.forEach(walk) }
        }
        walk(doc)
        #expect(!refs.isEmpty)
        for r in refs {
            #expect(r.hasPrefix("#/components/schemas/") && schemas[String(r.dropFirst("#/components/schemas/".count))] != nil, "unresolved \(r)")
        }
        var operationIds = Set<String>()
        for (path, methods) in paths {
            for (method, value) in methods {
                let op = try #require(value as? [String: Any])
                let responses = try #require(op["responses"] as? [String: Any], "\(method) \(path)")
                #expect(responses["421"] != nil, "\(method) \(path) lacks 421")
                // A PostgreSQL outage answers 503 on every route that looks up its caller or reads rows
                // (PostgresOutageTests): all but /healthz. Before, 50 operations did not declare it.
                #expect((responses["503"] != nil) == (path != "/healthz"), "\(method) \(path): 503 declared \(responses["503"] != nil)")
                // A body's text with U+0000 is 422 on PostgreSQL (BadInputTests); sign-in did not declare it.
                if op["requestBody"] != nil { #expect(responses["422"] != nil, "\(method) \(path) takes a body but lacks 422") }
                #expect(operationIds.insert(op["operationId"] as? String ?? "").inserted, "\(method) \(path): operationId repeated")
                // Every path parameter of the template is declared.
                let declared = Set(((op["parameters"] as? [[String: Any]]) ?? []).filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                let template = Set(path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
                #expect(declared == template, "\(method) \(path): path parameters \(declared) vs \(template)")
            }
        }
    }

    /// With an admin's write token (what the fuzz run uses), DELETE /api/users/<own id> removed the
    /// caller's own account once a second admin existed, and with it the token doing the work: a
    /// script could lock its admin out. An account cannot remove itself over the API (another
    /// admin can, or the CLI).
    @Test func anAdminCannotRemoveItsOwnAccount() async throws {
        let f = try await AccessFixture.make()
        let me = f.users["owner"]!
        // A second admin: the last-admin rule alone would not stop it.
        _ = try await f.server.store.createAccount(name: "second", passwordHash: testPasswordHash, admin: true)
        let write = "gat_" + Secrets.token()
        _ = try await f.server.store.createToken(account: me, name: "script", scope: .write, tokenHash: Secrets.digest(write))
        try await f.server.application().test(.router) { client in
            // A token may not remove accounts at all now (session 27: managing accounts needs a browser session).
            let byToken = try await client.execute(uri: "/api/users/\(me)", method: .delete, headers: [.authorization: "Bearer \(write)"])
            #expect(byToken.status == .forbidden, "\(String(buffer: byToken.body))")
            let session = AuthorizationMatrixTests.headers(.owner, f, unsafe: true, contentType: nil)
            let own = try await client.execute(uri: "/api/users/\(me)", method: .delete, headers: session)
            #expect(own.status == .unprocessableContent, "\(String(buffer: own.body))")
            #expect(String(buffer: own.body).contains("own account"))
            #expect(try await f.server.store.account(me) != nil)
            let other = try await client.execute(uri: "/api/users/\(f.users["vera"]!)", method: .delete, headers: session)
            #expect(other.status == .noContent)
        }
    }

    /// Found by schemathesis: a negative id in a batch (an item, an anchor, a section) or in an
    /// upload's `?section=` trapped converting it to the engine's UInt64 ids, and the whole
    /// process died (any editor could stop the server). Now it is an id that does not exist: 404.
    @Test func negativeIdsAreUnknownIdsNotACrash() async throws {
        let server = try await makeServer()
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let section = g.sections[0].id
            let base = "/api/galleries/\(g.gallery.id)"
            for op in [#"{"op": "trash", "items": [-1]}"#, #"{"op": "move", "items": [-5], "to": {"section": \#(section)}}"#,
                       #"{"op": "swap", "a": -1, "b": -2}"#, #"{"op": "renameSection", "section": -9223372036854775808, "title": "x"}"#,
                       #"{"op": "moveSection", "section": -3, "index": 0}"#, #"{"op": "deleteSection", "section": -3}"#,
                       #"{"op": "renameItem", "item": -1, "title": "x"}"#] {
                _ = try await client.error(.post, base + "/batch", ops(op), status: .notFound)
            }
            _ = try await client.error(.post, base + "/urls", #"{"url": "https://example.com/a.jpg", "to": {"before": -1}}"#, status: .notFound)
            _ = try await client.error(.post, base + "/urls", #"{"url": "https://example.com/a.jpg", "to": {"section": -1, "index": 0}}"#, status: .notFound)
            let upload = try await client.execute(uri: base + "/uploads?section=-9223372036854775808", method: .post,
                                                  headers: [.contentType: "multipart/form-data; boundary=b"], body: ByteBuffer(string: "--b--\r\n"))
            #expect(upload.status == .notFound, "\(String(buffer: upload.body))")
            // Still answering, nothing changed.
            #expect(try await client.snapshot(g.gallery.id).version == g.version)
        }
    }

    /// Found by schemathesis (unsupported_method): a route's path with a method it does not have
    /// answered 404, as if the path did not exist. Now 405 with `Allow` naming its methods.
    @Test func aMethodTheRouteDoesNotHaveIs405WithAllow() async throws {
        let f = try await AccessFixture.make()
        try await f.server.application().test(.router) { client in
            let owner = f.headers[.owner]! + [HTTPField(name: .origin, value: "http://localhost")]
            for (method, uri, allow) in [(HTTPRequest.Method.put, "/api/galleries/\(f.gallery)", "DELETE, GET, PATCH"),
                                         (.delete, "/api/session", "GET"), (.post, "/healthz", "GET"),
                                         (.patch, "/api/galleries", "GET, POST"),
                                         // A literal segment is its own resource, as the router sees it (not a gallery named "import").
                                         (.patch, "/api/galleries/import", "POST")] {
                let r = try await client.execute(uri: uri, method: method, headers: owner)
                #expect(r.status == .methodNotAllowed, "\(method) \(uri): \(r.status)")
                #expect(r.headers[.allow] == allow, "\(method) \(uri): Allow \(r.headers[.allow] ?? "none")")
                #expect(String(buffer: r.body).contains("\"status\":405"))
            }
            // Paths no route has stay 404; the page's files are still served.
            #expect(try await client.execute(uri: "/api/nothing-here", method: .put, headers: owner).status == .notFound)
            #expect(try await client.execute(uri: "/index.html", method: .get, headers: owner).status == .ok)
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .get, headers: owner).status == .ok)
        }
    }
}
