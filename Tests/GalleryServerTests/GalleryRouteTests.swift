import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryCore
@testable import GalleryServer
import GalleryStore

@Suite struct GalleryRouteTests {
    @Test func galleriesAreDocumentsCreatedRenamedDuplicatedAndDeleted() async throws {
        let server = try await makeServer()
        try await server.test(.router) { client in
            let list0: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list0.isEmpty)
            let fruit = try await client.newGallery("Fruit")
            #expect(fruit.sections.count == 1 && fruit.version == 0)
            let renamed: GalleryInfo = try await client.json(.patch, "/api/galleries/\(fruit.gallery.id)", #"{"name": "Fruit bowl"}"#)
            #expect(renamed.name == "Fruit bowl")
            let copy: GalleryInfo = try await client.json(.post, "/api/galleries/\(fruit.gallery.id)/duplicate", #"{"name": "Copy"}"#, status: .created)
            #expect(copy.id != fruit.gallery.id)
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list.map(\.name) == ["Fruit bowl", "Copy"])
            let added = try await server.store.apply(gallery: fruit.gallery.id, [.insert([NewItem(title: "Pear")], at: .end(section: fruit.sections[0].id))],
                                                     payload: "test").createdItems[0]
            let r = try await client.execute(uri: "/api/galleries/\(fruit.gallery.id)", method: .delete)
            #expect(r.status == .noContent)
            let list2: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list2.map(\.name) == ["Copy"])
            // Gone at once, while its rows may still be on their way out.
            #expect(try await client.error(.get, "/api/galleries/\(fruit.gallery.id)", status: .notFound) == "unknown gallery \(fruit.gallery.id)")
            _ = try await client.error(.get, "/api/items/\(added)", status: .notFound)
            _ = try await client.error(.delete, "/api/galleries/\(fruit.gallery.id)", status: .notFound)
            _ = try await client.error(.post, "/api/galleries/\(fruit.gallery.id)/batch",
                                       #"{"operations": [{"op": "trash", "items": [\(added)]}]}"#, status: .notFound)
        }
    }

    /// A server stopped half way through removing a deleted gallery's rows finishes at its next start.
    @Test func aStartFinishesADeleteAStoppedServerLeftHalfWay() async throws {
        let first = try await makeServer()
        await first.store.finishPurge() // the start's own look (nothing to do) is over before the rows are marked
        let g = try await first.store.createGallery(name: "Half")
        let kept = try await first.store.createGallery(name: "Kept")
        let section = try await first.store.snapshot(g.id).sections[0].id
        _ = try await first.store.apply(gallery: g.id, [.insert((0..<300).map { NewItem(title: "\($0)") }, at: .end(section: section))], payload: "test")
        try await first.store.database.write { db in
            try db.execute("UPDATE gallery SET deleting = 1 WHERE id = ?", [g.id])
            try db.execute("DELETE FROM item WHERE id IN (SELECT id FROM item WHERE galleryId = ? LIMIT 100)", [g.id])
        }
        try first.store.close()
        let again = try await GalleryServer(configuration: first.configuration, logger: quietLogger)
        await again.store.finishPurge()
        #expect(try await again.store.galleriesBeingDeleted().isEmpty)
        let left = try await again.store.database.read { db in
            try db.value("SELECT COUNT(*) FROM item WHERE galleryId = ?", [g.id], as: Int.self)
        }
        #expect(left == 0)
        #expect(try await again.store.listGalleries().map(\.id) == [kept.id])
    }

    @Test func unknownIdsAndMalformedBodiesAreRefusedWithJSONErrors() async throws {
        let server = try await makeServer()
        try await server.test(.router) { client in
            let message1 = try await client.error(.get, "/api/galleries/42", status: .notFound)
            #expect(message1 == "unknown gallery 42")
            let message2 = try await client.error(.get, "/api/galleries/abc", status: .badRequest)
            #expect(message2.contains("not an integer"))
            let message3 = try await client.error(.post, "/api/galleries", "{\"name\": ", status: .badRequest)
            #expect(message3 == "malformed JSON: not valid JSON")
            let message4 = try await client.error(.post, "/api/galleries", "{}", status: .badRequest)
            #expect(message4.contains("missing \"name\""))
            let message5 = try await client.error(.post, "/api/galleries", #"{"name": "  "}"#, status: .unprocessableContent)
            #expect(message5 == "name must not be empty")
            let message6 = try await client.error(.get, "/api/items/7", status: .notFound)
            #expect(message6 == "unknown item 7")
            let message7 = try await client.error(.delete, "/api/galleries/9", status: .notFound)
            #expect(message7 == "unknown gallery 9")
            let big = String(repeating: "x", count: 5 << 20)
            let tooLarge = try await client.execute(uri: "/api/galleries", method: .post, body: ByteBuffer(string: #"{"name": "\#(big)"}"#))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(String(buffer: tooLarge.body).contains("\"status\":413"), "\(String(buffer: tooLarge.body))")
        }
    }

    @Test func firstStartCreatesTheSampleGalleryWithTheSeedTitles() async throws {
        let server = try await makeServer { $0.createSampleGallery = true }
        try await server.test(.router) { client in
            let list: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list.count == 1)
            let s = try await client.snapshot(list[0].id)
            #expect(s.sections.count == 2)
            #expect(s.sections[0].items.map(\.title) == ["Apple", "Banana", "Cherry", "Date", "Dragon", "Sheep", "V-Malicious", "X-Code", "GreatWall", "TaiTan", "Milk", "🥸"])
            #expect(s.sections[1].items.count > 0)
            let all = s.sections.flatMap(\.items)
            #expect(all.allSatisfy { $0.state == .ready && $0.thumbnails != nil })
            #expect(Set(all.map { ($0.aspect * 100).rounded() }).count >= 5, "varied aspect ratios")
            let grid = try await client.execute(uri: all[1].thumbnails!.grid, method: .get)
            #expect(grid.status == .ok && grid.headers[.contentType] == "image/jpeg")
        }
        // A second start finds a gallery and adds none.
        let again = try await GalleryServer(configuration: server.configuration, logger: quietLogger)
        #expect(try await again.store.listGalleries().count == 1)
    }

    /// The page's first script is written into the document and allowed by its hash alone
    /// (issue 15.2: no round trip before its downloads start); a script that could end the element
    /// early is not written in.
    @Test func thePageCarriesItsFirstScriptAllowedByItsHash() async throws {
        let server = try await makeServer()
        let web = server.configuration.webFolder
        try FileManager.default.createDirectory(at: web.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data(#"<!doctype html><head><script src="/js/early.js"></script></head><body><script type="module" src="/js/page.js"></script></body>"#.utf8)
            .write(to: web.appendingPathComponent("index.html"))
        let early = "{\n  window.early = { wasm: fetch('/engine.wasm') };\n}\n"
        try Data(early.utf8).write(to: web.appendingPathComponent("js/early.js"))
        // What a browser computes for the element's text: SHA-256, base64 (sha256sum of the text).
        let hash = "'sha256-" + Data(sha256Hex(early).chunked2().map { UInt8($0, radix: 16)! }).base64EncodedString() + "'"
        try await server.test(.live) { client in
            for uri in ["/", "/index.html", "/setup", "/s/anything"] {
                let page = try await client.execute(uri: uri, method: .get)
                let body = String(buffer: page.body)
                #expect(page.status == .ok, "\(uri)")
                #expect(body.contains("<script>\(early)</script>") && !body.contains("src=\"/js/early.js\""), "\(uri): \(body)")
                let csp = page.headers[.contentSecurityPolicy] ?? ""
                #expect(csp.contains("script-src 'self' \(hash) 'wasm-unsafe-eval'") && !csp.contains("unsafe-inline"), "\(uri): \(csp)")
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("style-src 'self';"), "\(uri): \(csp)")
            }
            // Every other answer keeps the policy without the hash.
            let session = try await client.execute(uri: "/api/session", method: .get)
            #expect(session.headers[.contentSecurityPolicy] == SecurityPolicy.contentSecurityPolicy)
            // A script whose text holds "</script" stays a file of its own (and no hash is allowed).
            try Data("document.write('</SCRIPT>')".utf8).write(to: web.appendingPathComponent("js/early.js"))
            let page = try await client.execute(uri: "/", method: .get)
            #expect(String(buffer: page.body).contains(#"<script src="/js/early.js"></script>"#))
            #expect(page.headers[.contentSecurityPolicy] == SecurityPolicy.contentSecurityPolicy)
        }
    }

    @Test func servesThePageEngineWasmAndItsProtocolModule() async throws {
        let built = testFolder("wasm-build")
        try FileManager.default.createDirectory(at: built, withIntermediateDirectories: true)
        let wasm = built.appendingPathComponent("engine.wasm")
        try Data([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0]).write(to: wasm)
        try Data("export const protocolVersion = 3;".utf8).write(to: built.appendingPathComponent("protocol.js"))
        try Data("const __app = (() => {})();".utf8).write(to: built.appendingPathComponent("page.js"))
        let server = try await makeServer { $0.wasmPath = wasm }
        try FileManager.default.createDirectory(at: server.configuration.webFolder, withIntermediateDirectories: true)
        try Data("<!doctype html><title>Gallery</title>".utf8).write(to: server.configuration.webFolder.appendingPathComponent("index.html"))
        try await server.test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && String(buffer: page.body).contains("<title>Gallery</title>"))
            let w = try await client.execute(uri: "/engine.wasm", method: .get)
            #expect(w.status == .ok && w.headers[.contentType] == "application/wasm" && w.body.readableBytes == 8)
            // The protocol module comes from beside engine.wasm, as a JavaScript module.
            let p = try await client.execute(uri: "/js/protocol.js", method: .get)
            #expect(p.status == .ok && p.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(String(buffer: p.body) == "export const protocolVersion = 3;")
            // The page's modules bundled (scripts/bundle-page.py), from the same folder.
            let bundle = try await client.execute(uri: "/js/page.js", method: .get)
            #expect(bundle.status == .ok && bundle.headers[.contentType]?.hasPrefix("text/javascript") == true)
            #expect(String(buffer: bundle.body) == "const __app = (() => {})();")
        }
        let missing = try await makeServer { $0.wasmPath = URL(fileURLWithPath: "/nonexistent/engine.wasm") }
        try await missing.test(.router) { client in
            let message8 = try await client.error(.get, "/engine.wasm", status: .notFound)
            #expect(message8.contains("engine.wasm not found"))
            #expect(try await client.error(.get, "/js/protocol.js", status: .notFound).contains("protocol.js not found"))
            #expect(try await client.error(.get, "/js/page.js", status: .notFound).contains("page.js not found"))
        }
    }
}

/// SHA-256 of a text as hex, by the system's sha256sum (not the server's code under test).
private func sha256Hex(_ text: String) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe(), output = Pipe()
    p.standardInput = input
    p.standardOutput = output
    try? p.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try? input.fileHandleForWriting.close()
    p.waitUntilExit()
    return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")[0].description
}

private extension String {
    /// "a1b2…" → ["a1", "b2", …].
    func chunked2() -> [String] {
        var out: [String] = [], rest = Substring(self)
        while !rest.isEmpty { out.append(String(rest.prefix(2))); rest = rest.dropFirst(2) }
        return out
    }
}
