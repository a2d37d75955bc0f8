import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import NIOCore
import AsyncHTTPClient
import HTTPTypes
import GRDB
import GalleryCore
import GalleryServer
import GalleryStore

/// Issue 10's attack of record: any page the owner visits posts `trash` + `purge` to the batch
/// route as a "simple request" (text/plain or a form, no preflight). Refused, nothing changed.
@Suite struct CrossSiteTests {
    @Test func crossSiteSimpleRequestsForeignHostsAndFramingAreRefused() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]!
        let purge = #"{"operations": [{"op": "trash", "items": [\#(f.item)]}, {"op": "purge", "items": [\#(f.item)]}]}"#
        let before = try await f.digest()
        try await f.server.application().test(.router) { client in
            func post(_ headers: HTTPFields, _ body: String) async throws -> TestResponse {
                var h = owner
                for field in headers { h[field.name] = field.value }
                return try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post, headers: h, body: ByteBuffer(string: body))
            }
            // The exact request of the issue: another site, text/plain.
            let textPlain = try await post([.origin: "http://evil.example", .contentType: "text/plain"], purge)
            #expect(textPlain.status == .forbidden)
            #expect(message(textPlain).contains("cross-site"))
            // A form post from another site.
            let form = try await post([.origin: "http://evil.example", .contentType: "application/x-www-form-urlencoded"], "operations=x")
            #expect(form.status == .forbidden)
            // No Origin at all (an old browser or a stripped header) and no Sec-Fetch-Site: refused.
            let bare = try await post([.contentType: "application/json"], purge)
            #expect(bare.status == .forbidden)
            // Our own origin but text/plain: the body is never parsed as JSON.
            let sameSiteText = try await post([.origin: "http://localhost", .contentType: "text/plain"], purge)
            #expect(sameSiteText.status == .unsupportedMediaType)
            // Sec-Fetch-Site from another site.
            let fetchMeta = try await post([HTTPField.Name("Sec-Fetch-Site")!: "cross-site", .contentType: "application/json"], purge)
            #expect(fetchMeta.status == .forbidden)
            // A browser's same-origin fetch without Origin but with fetch metadata: fine (a rename, harmless here).
            let fetchSame = try await client.execute(uri: "/api/galleries/\(f.gallery)/batch", method: .post,
                                                     headers: owner + [HTTPField(name: HTTPField.Name("Sec-Fetch-Site")!, value: "same-origin"), HTTPField(name: .contentType, value: "application/json")],
                                                     body: ByteBuffer(string: #"{"operations": []}"#))
            #expect(fetchSame.status != .forbidden)
            #expect(fetchMeta.status == .forbidden)
            // (The router test client fixes the authority; the live test below sends real Host headers.)
        }
        #expect(try await f.digest() == before, "a refused request changed the data")

    }

    /// Real HTTP: Host headers as a rebinding page's browser sends them, and the headers of every answer.
    @Test func foreignHostsAreRefusedAndEveryAnswerForbidsFraming() async throws {
        let f = try await AccessFixture.make()
        let owner = f.headers[.owner]!
        // A server runs its application once (the fixture's ran to open the links): a second
        // server on the same data folder, as after a restart.
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            let foreign = try rawGet(port: port, path: "/api/session", host: "evil.example:\(port)")
            #expect(foreign.status == 421, "\(foreign)")
            #expect(try rawGet(port: port, path: "/api/session", host: "localhost:\(port)").status == 200)
            #expect(try rawGet(port: port, path: "/api/session", host: "127.0.0.1:\(port)").status == 200)
            for uri in ["/api/session", "/api/galleries", "/", "/nope"] {
                let r = try rawGet(port: port, path: uri, host: "localhost:\(port)")
                let csp = r.headers["content-security-policy"] ?? ""
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self' 'wasm-unsafe-eval'") && !csp.contains("unsafe-inline"), "\(uri): \(csp)")
                #expect(r.headers["x-content-type-options"] == "nosniff", "\(uri)")
                #expect(r.headers["x-frame-options"] == "DENY", "\(uri)")
            }
            let image = try rawGet(port: port, path: "/api/images/\(f.hash)/grid.jpg", host: "localhost:\(port)", cookie: owner[.cookie])
            #expect(image.status == 200)
            #expect(image.headers["cache-control"]?.hasPrefix("private") == true)
        }
    }

    @Test func aHostOutsideTheBindAddressAndPublicURLIsRefused() async throws {
        func guardFor(host: String, publicURL: String? = nil) -> RequestGuardProbe {
            var c = ServerConfiguration()
            c.host = host
            c.publicURL = publicURL.flatMap(URL.init(string:))
            return RequestGuardProbe(configuration: c)
        }
        let loopback = guardFor(host: "127.0.0.1")
        #expect(loopback.accepts("127.0.0.1:8080") && loopback.accepts("localhost:8080") && loopback.accepts("[::1]:8080"))
        #expect(!loopback.accepts("evil.example:8080") && !loopback.accepts("192.168.1.5:8080") && !loopback.accepts("localhost.evil.example"))
        let lan = guardFor(host: "0.0.0.0", publicURL: "https://photos.example.org")
        #expect(lan.accepts("192.168.1.5:8080") && lan.accepts("photos.example.org") && lan.accepts("[fe80::1]:8080"))
        #expect(!lan.accepts("evil.example") && !lan.accepts("photos.example.org.evil.example"))
        let named = guardFor(host: "nas.local")
        #expect(named.accepts("nas.local:8080") && !named.accepts("localhost:8080") && !named.accepts("10.0.0.2"))
    }

    /// The Origin's scheme counts (the attacker review of session 27: http://photos.example.org
    /// was accepted for the https site, so a page anyone on the path can write could post with
    /// the session cookie). The server itself speaks plain HTTP; https only through --public-url.
    @Test func anOriginIsOursOnlyWithOurScheme() {
        var c = ServerConfiguration()
        c.host = "0.0.0.0"
        c.publicURL = URL(string: "https://photos.example.org")
        let proxied = RequestGuardProbe(configuration: c)
        #expect(proxied.acceptsOrigin("https://photos.example.org", host: "photos.example.org"))
        #expect(proxied.acceptsOrigin("https://Photos.Example.org", host: "127.0.0.1:8080"), "the proxy may pass its own Host")
        #expect(!proxied.acceptsOrigin("http://photos.example.org", host: "photos.example.org"))
        #expect(!proxied.acceptsOrigin("https://photos.example.org:8443", host: "photos.example.org"))
        #expect(!proxied.acceptsOrigin("https://evil.example", host: "photos.example.org"))
        #expect(proxied.acceptsOrigin("http://192.168.1.5:8080", host: "192.168.1.5:8080"), "the LAN address, served plainly")
        #expect(!proxied.acceptsOrigin("https://192.168.1.5:8080", host: "192.168.1.5:8080"))
        #expect(!proxied.acceptsOrigin("null", host: "photos.example.org"))
        let local = RequestGuardProbe(configuration: ServerConfiguration())
        #expect(local.acceptsOrigin("http://localhost:8080", host: "localhost:8080"))
        #expect(!local.acceptsOrigin("https://localhost:8080", host: "localhost:8080"))
        #expect(!local.acceptsOrigin("http://localhost:8081", host: "localhost:8080"))
        #expect(!local.acceptsOrigin("ftp://localhost:8080", host: "localhost:8080"))
    }
}

/// A GET over a plain socket with exactly the Host header given (HTTP clients take their
/// target from Host, a rebinding browser does not): the status and the header lines.
func rawGet(port: Int, path: String, host: String, cookie: String? = nil) throws -> (status: Int, headers: [String: String]) {
    // The test server listens on "localhost": whichever of ::1 and 127.0.0.1 that is.
    var hints = addrinfo(ai_flags: 0, ai_family: AF_UNSPEC, ai_socktype: Int32(SOCK_STREAM.rawValue), ai_protocol: 0,
                         ai_addrlen: 0, ai_addr: nil, ai_canonname: nil, ai_next: nil)
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo("localhost", String(port), &hints, &list) == 0 else { throw POSIXError(.EHOSTUNREACH) }
    defer { freeaddrinfo(list) }
    var fd: Int32 = -1
    var node = list
    while let n = node {
        fd = socket(n.pointee.ai_family, n.pointee.ai_socktype, n.pointee.ai_protocol)
        if fd >= 0 && connect(fd, n.pointee.ai_addr, n.pointee.ai_addrlen) == 0 { break }
        if fd >= 0 { close(fd); fd = -1 }
        node = n.pointee.ai_next
    }
    guard fd >= 0 else { throw POSIXError(.ECONNREFUSED) }
    defer { close(fd) }
    let request = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n" + (cookie.map { "Cookie: \($0)\r\n" } ?? "") + "Connection: close\r\n\r\n"
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var data = [UInt8](), buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        data += buffer[0..<n]
        if let text = String(bytes: data, encoding: .utf8), text.contains("\r\n\r\n") { break }
    }
    let head = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        if let colon = line.firstIndex(of: ":") { headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
    }
    let status = head[0].split(separator: " ")
    return (status.count > 1 ? Int(status[1]) ?? 0 : 0, headers)
}
