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
    /// Ten failed sign-ins (unknown names, so only the address's count locks) from one client,
    /// then the right password from another client of the same proxy.
    func signInAfterAnotherClientsFailures(trusted: Set<String>) async throws -> (other: HTTPResponse.Status, same: HTTPResponse.Status) {
        let server = try await makeServer(.sqlite) { $0.trustedProxies = trusted }
        _ = try await server.store.createAccount(name: "ana", passwordHash: try await Secrets.hashPassword("correct horse"), admin: true)
        return try await server.application().test(.live) { client in
            func login(_ name: String, _ password: String, from address: String) async throws -> HTTPResponse.Status {
                var h: HTTPFields = [.contentType: "application/json", .origin: "http://localhost"]
                h[AccessMiddleware.forwardedFor] = "198.18.0.1, \(address)" // the left entry: whatever the client wrote
                let r = try await client.execute(uri: "/api/login", method: .post, headers: h,
                                                 body: ByteBuffer(string: #"{"name": "\#(name)", "password": "\#(password)"}"#))
                if r.status == .forbidden { Issue.record("\(String(buffer: r.body))") }
                return r.status
            }
            for k in 0..<10 {
                let status = try await login("nobody\(k)", "guess", from: "203.0.113.5")
                #expect(status == .unauthorized || (k >= 5 && status == .tooManyRequests), "\(status)")
            }
            return (try await login("ana", "correct horse", from: "198.51.100.7"),
                    try await login("ana", "correct horse", from: "203.0.113.5"))
        }
    }

    @Test func behindATrustedProxyOneClientsFailuresDoNotLockTheOthersOut() async throws {
        let r = try await signInAfterAnotherClientsFailures(trusted: ["127.0.0.1"])
        #expect(r.other == .ok, "another client of the proxy signs in")
        #expect(r.same == .tooManyRequests, "the failing client stays throttled")
    }

    /// Without `--trusted-proxy` the header is the client's own word: ignored, so a client cannot
    /// escape its throttle by writing a new address into it.
    @Test func withoutATrustedProxyTheHeaderIsIgnored() async throws {
        let r = try await signInAfterAnotherClientsFailures(trusted: [])
        #expect(r.other == .tooManyRequests, "X-Forwarded-For from an untrusted peer changes nothing")
        #expect(r.same == .tooManyRequests)
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
