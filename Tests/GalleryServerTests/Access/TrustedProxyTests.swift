import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import GalleryServer
import GalleryStore

/// Behind a reverse proxy every request comes from the proxy's address: sign-in throttling
/// (counted per client address) must take the client's address from `X-Forwarded-For` when —
/// and only when — the peer is a proxy the server was told to trust (`--trusted-proxy`).
@Suite struct TrustedProxyTests {
    /// The address 203.0.113.5 is locked out (as after many failed sign-ins), and so is the
    /// proxy's own address 127.0.0.1 (the peer every request over loopback comes from); then
    /// the right password is sent through the proxy for 198.51.100.7 and for 203.0.113.5.
    func signInThroughTheProxy(trusted: Set<String>) async throws -> (other: HTTPResponse.Status, locked: HTTPResponse.Status) {
        let server = try await makeServer(.sqlite) { $0.trustedProxies = trusted }
        _ = try await server.store.createAccount(name: "ana", passwordHash: try await Secrets.hashPassword("correct horse"), admin: true)
        for _ in 0..<30 { server.access.throttle.failed(["ip:203.0.113.5", "ip:127.0.0.1"]) } // locked for 15 minutes
        return try await server.application().test(.live) { client in
            func login(from address: String) async throws -> HTTPResponse.Status {
                var h: HTTPFields = [.contentType: "application/json", .origin: "http://localhost"]
                h[AccessMiddleware.forwardedFor] = "198.18.0.1, \(address)" // the left entry: whatever the client wrote
                let r = try await client.execute(uri: "/api/login", method: .post, headers: h,
                                                 body: ByteBuffer(string: #"{"name": "ana", "password": "correct horse"}"#))
                #expect(r.status == .ok || r.status == .tooManyRequests, "\(String(buffer: r.body))")
                return r.status
            }
            return (try await login(from: "198.51.100.7"), try await login(from: "203.0.113.5"))
        }
    }

    @Test func behindATrustedProxyEachClientHasItsOwnCount() async throws {
        let r = try await signInThroughTheProxy(trusted: ["127.0.0.1"])
        #expect(r.other == .ok, "another client of the proxy signs in (before: every client was the proxy's address)")
        #expect(r.locked == .tooManyRequests, "the locked-out client stays locked out")
    }

    /// Without `--trusted-proxy` the header is the client's own word: ignored, so a client cannot
    /// escape its throttle by writing a new address into it.
    @Test func withoutATrustedProxyTheHeaderIsIgnored() async throws {
        let r = try await signInThroughTheProxy(trusted: [])
        #expect(r.other == .tooManyRequests, "X-Forwarded-For from an untrusted peer changes nothing")
        #expect(r.locked == .tooManyRequests)
    }

    @Test func theClientIsTheNearestUntrustedHop() {
        let trusted: Set<String> = ["127.0.0.1", "10.0.0.2"]
        func client(_ peer: String, _ header: [String]) -> String {
            AccessMiddleware.clientAddress(peer: peer, forwardedFor: header, trusted: trusted)
        }
        #expect(client("127.0.0.1", ["203.0.113.5"]) == "203.0.113.5")
        #expect(client("127.0.0.1", ["1.2.3.4, 203.0.113.5"]) == "203.0.113.5", "entries the client wrote are skipped")
        #expect(client("127.0.0.1", ["203.0.113.5, 10.0.0.2"]) == "203.0.113.5", "a second trusted proxy is passed over")
        #expect(client("127.0.0.1", ["1.2.3.4", "203.0.113.5"]) == "203.0.113.5", "several header lines read as one list")
        #expect(client("127.0.0.1", []) == "127.0.0.1")
        #expect(client("127.0.0.1", ["not-an-address"]) == "127.0.0.1")
        #expect(client("192.0.2.9", ["203.0.113.5"]) == "192.0.2.9", "an untrusted peer is the client")
    }
}

/// The bearer token's and the cookie's values are trimmed as Foundation's `.whitespaces` trims
/// them (the fast ASCII path gives way to Foundation at any other end).
@Suite struct HeaderValueTrimTests {
    @Test(arguments: ["", " ", "\t \t", "gat_abc", "  gat_abc\t", "\tvalue with inner space ", "\u{00A0}gat_abc",
                      "gat_abc\u{3000}", " \u{2003} gat_abc \u{2003}", "é", " é ", "\u{00A0}", "x\u{00A0}y"])
    func trimsAsFoundationDoes(_ value: String) {
        let whole = Substring("k" + value + "k").dropFirst().dropLast()
        #expect(AccessMiddleware.trimmed(whole) == value.trimmingCharacters(in: .whitespaces))
        #expect(AccessMiddleware.trimmed(Substring(value)) == value.trimmingCharacters(in: .whitespaces))
    }
}
