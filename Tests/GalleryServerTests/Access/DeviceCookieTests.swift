import Foundation
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOCore
import Testing
@testable import GalleryServer
import GalleryStore
import StoreTestSupport

/// Anyone who knows an account's name could lock it with wrong passwords — the account-wide
/// throttle doubles to 15 minutes — and keep its owner out for good (the attacker review of
/// session 27). A browser that signed in to the account before carries a device cookie; its
/// sign-ins count on their own. Clients are told apart through a trusted proxy's X-Forwarded-For.
@Suite struct DeviceCookieTests {
    @Test func theOwnersBrowserSignsInWhileOthersHaveLockedTheAccount() async throws {
        let server = try await makeServer(.sqlite) { $0.trustedProxies = ["127.0.0.1", "::1"] }
        let ana = try await server.store.createAccount(name: "ana", passwordHash: try await Secrets.hashPassword("correct horse"), admin: true)
        try await server.application().test(.live) { client in
            func login(from address: String, password: String, device: String? = nil, name: String = "ana") async throws -> TestResponse {
                var h: HTTPFields = [.contentType: "application/json", .origin: "http://localhost"]
                h[AccessMiddleware.forwardedFor] = address
                if let device { h[.cookie] = "\(DeviceCookies.name)=\(device)" }
                return try await client.execute(uri: "/api/login", method: .post, headers: h,
                                                body: ByteBuffer(string: #"{"name": "\#(name)", "password": "\#(password)"}"#))
            }
            func cookie(_ r: TestResponse, _ name: String) -> String? {
                r.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1).prefix { $0 != ";" }) }
            }
            // The owner signs in at home: a session and a device cookie, sent only to the sign-in.
            let home = try await login(from: "198.51.100.7", password: "correct horse")
            #expect(home.status == .ok)
            let device = try #require(cookie(home, DeviceCookies.name))
            let session = try #require(cookie(home, AccessControl.cookieName))
            let line = home.headers[values: .setCookie].first { $0.hasPrefix(DeviceCookies.name) } ?? ""
            #expect(line.contains("Path=/api/login") && line.contains("HttpOnly") && line.contains("SameSite=Strict"), "\(line)")

            // Someone else guesses from elsewhere (their failures count against the account) until it
            // is locked: 30 failures lock it 15 minutes (counted here directly, so that no wait on a
            // slow machine runs out between two requests; a few are real).
            for _ in 0..<3 { #expect(try await login(from: "203.0.113.5", password: "wrong horse").status == .unauthorized) }
            #expect(server.access.throttle.failures("user:ana") == 3)
            for _ in 0..<27 { server.access.throttle.failed(["user:ana", "ip:203.0.113.5"]) }
            #expect(try await login(from: "203.0.113.5", password: "correct horse").status == .tooManyRequests)
            #expect(try await login(from: "192.0.2.44", password: "correct horse").status == .tooManyRequests,
                    "a browser the account has not seen waits out the account's lock")
            // A forged, altered or other account's device cookie is no device.
            var forged = Array(device); forged[forged.count - 2] = forged[forged.count - 2] == "A" ? "B" : "A"
            #expect(try await login(from: "192.0.2.45", password: "correct horse", device: String(forged)).status == .tooManyRequests)
            #expect(DeviceCookies(key: Array(repeating: 7, count: 32)).throttleKey(device, signingInAs: "ana") == nil, "another key")
            #expect(server.access.devices.throttleKey(device, signingInAs: " ANA ") != nil)
            #expect(server.access.devices.throttleKey(device, signingInAs: "bob") == nil)

            // The owner's browser signs in all the same.
            #expect(try await login(from: "198.51.100.7", password: "correct horse", device: device).status == .ok)
            // And, signed in, changes the password: the current one is checked under the session's count.
            var h: HTTPFields = [.contentType: "application/json", .origin: "http://localhost", .cookie: "\(AccessControl.cookieName)=\(session)"]
            h[AccessMiddleware.forwardedFor] = "198.51.100.7"
            let change = try await client.execute(uri: "/api/users/\(ana.id)", method: .patch, headers: h,
                                                  body: ByteBuffer(string: #"{"password": "correct horse 2", "current": "correct horse"}"#))
            #expect(change.status == .ok, "\(String(buffer: change.body))")

            // Wrong passwords from the device count against the device (and its address), not the
            // account; a locked device waits like anyone (its 30 failures counted directly, as above).
            let deviceKey = try #require(server.access.devices.throttleKey(device, signingInAs: "ana"))
            let accountFailures = server.access.throttle.failures("user:ana")
            for _ in 0..<2 { #expect(try await login(from: "198.51.100.8", password: "wrong horse", device: device).status == .unauthorized) }
            #expect(server.access.throttle.failures(deviceKey) == 2 && server.access.throttle.failures("user:ana") == accountFailures)
            for _ in 0..<28 { server.access.throttle.failed([deviceKey]) }
            #expect(try await login(from: "198.51.100.8", password: "correct horse 2", device: device).status == .tooManyRequests)
        }
    }

    /// The key is the database's: a device stays known after a restart and at another instance on
    /// the same database, and only there.
    @Test(arguments: Backend.tested) func aDeviceIsKnownAfterARestart(_ backend: Backend) async throws {
        let first = try await makeServer(backend)
        _ = try await first.store.createAccount(name: "ana", passwordHash: try await Secrets.hashPassword("correct horse"), admin: true)
        let device = try await first.application().test(.router) { client -> String? in
            let r = try await client.execute(uri: "/api/login", method: .post, headers: [.contentType: "application/json", .origin: "http://localhost"],
                                             body: ByteBuffer(string: #"{"name": "ana", "password": "correct horse"}"#))
            #expect(r.status == .ok)
            return r.headers[values: .setCookie].first { $0.hasPrefix(DeviceCookies.name + "=") }
                .map { String($0.dropFirst(DeviceCookies.name.count + 1).prefix { $0 != ";" }) }
        }
        let cookie = try #require(device)
        let again = try await GalleryServer(configuration: first.configuration, logger: quietLogger)
        #expect(again.access.devices.throttleKey(cookie, signingInAs: "ana") == first.access.devices.throttleKey(cookie, signingInAs: "ana"))
        #expect(again.access.devices.throttleKey(cookie, signingInAs: "ana") != nil)
        let elsewhere = try await makeServer(backend)
        #expect(elsewhere.access.devices.throttleKey(cookie, signingInAs: "ana") == nil, "another database's key")
    }
}
