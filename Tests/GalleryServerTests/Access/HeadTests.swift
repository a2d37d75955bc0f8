import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import GalleryServer

/// HEAD is answered wherever GET is (the attacker review of session 27: `HEAD /healthz` and every
/// API route were 404, so monitors that probe with HEAD saw the server down). The matrix test
/// checks HEAD's status against GET's for every route and caller; this one what a HEAD must not do.
@Suite struct HeadTests {
    @Test func headAnswersAsGetDoesWithoutABody() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]!
        try await f.server.application().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .head)
            #expect(health.status == .ok && health.body.readableBytes == 0)
            let get = try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .get, headers: owner)
            let head = try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .head, headers: owner)
            #expect(head.status == .ok && head.body.readableBytes == 0 && get.body.readableBytes > 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .head).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/nothing-here", method: .head, headers: owner).status == .notFound)
        }
    }

    /// A stream's or a download's GET sets up what only its body frees (a subscription, a
    /// temporary zip): HEAD, whose body is never sent, must not set them up, or each HEAD leaks one.
    @Test func headOfAStreamOrADownloadHoldsNothing() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]!
        let temporary = f.server.store.files.temporaryURL().deletingLastPathComponent()
        func temporaries() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: temporary.path).count) ?? 0 }
        let before = temporaries()
        let uris = ["/api/galleries/events", "/api/galleries/\(f.gallery)/events",
                    "/api/galleries/\(f.gallery)/export", "/api/galleries/\(f.gallery)/download"]
        try await f.server.application().test(.router) { client in
            for _ in 0..<5 {
                for uri in uris {
                    let r = try await client.execute(uri: uri, method: .head, headers: owner)
                    #expect(r.status == .ok && r.body.readableBytes == 0, "\(uri)")
                }
            }
            #expect(try await client.execute(uri: uris[1], method: .head).status == .unauthorized)
        }
        #expect(f.server.store.subscriberCount(gallery: f.gallery) == 0)
        #expect(temporaries() == before)
    }

    /// Hummingbird writes an answer's head before it runs its body, and never runs the body when
    /// the head cannot be written (the client went away while the handler ran). What the handler
    /// set up for the body — a subscription and its tasks, a temporary zip — is released when the
    /// answer is dropped unsent, not only when its body ends.
    @Test func anAnswerDroppedUnsentHoldsNothing() async throws {
        let f = try await AccessFixture.make()
        let responder = f.server.router().buildResponder()
        let temporary = f.server.store.files.temporaryURL().deletingLastPathComponent()
        func temporaries() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: temporary.path).count) ?? 0 }
        func answer(_ path: String) async throws -> Response {
            let request = Request(head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: path, headerFields: f.headers[.owner]!),
                                  body: RequestBody(buffer: ByteBuffer()))
            let context = GalleryRequestContext(source: ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "test")))
            return try await responder.respond(to: request, context: context)
        }
        let before = temporaries()
        var stream: Response? = try await answer("/api/galleries/\(f.gallery)/events")
        #expect(stream?.status == .ok && f.server.store.subscriberCount(gallery: f.gallery) == 1, "the subscription is made by the handler")
        stream = nil
        #expect(f.server.store.subscriberCount(gallery: f.gallery) == 0, "a stream's answer dropped unsent still subscribed")
        var list: Response? = try await answer("/api/galleries/events")
        #expect(list?.status == .ok)
        list = nil
        for path in ["/api/galleries/\(f.gallery)/export", "/api/galleries/\(f.gallery)/download"] {
            var zip: Response? = try await answer(path)
            #expect(zip?.status == .ok && temporaries() == before + 1, "\(path): the zip is written by the handler")
            zip = nil
            #expect(temporaries() == before, "\(path): a zip's answer dropped unsent left its file")
        }
        _ = list; _ = stream
    }
}
