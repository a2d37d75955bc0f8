import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryCore
import GalleryServer

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
            let r = try await client.execute(uri: "/api/galleries/\(fruit.gallery.id)", method: .delete)
            #expect(r.status == .noContent)
            let list2: [GalleryInfo] = try await client.json(.get, "/api/galleries")
            #expect(list2.map(\.name) == ["Copy"])
        }
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
