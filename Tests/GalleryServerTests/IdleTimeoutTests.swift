import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryServer

/// A connection that never finishes its request head is closed after `idleTimeout` (slowloris:
/// the attacker review of session 27 held sockets open forever until new clients hung), as is a
/// kept-alive connection left idle; an answer under way (a live stream) is never cut.
@Suite struct IdleTimeoutTests {
    /// A TCP connection to the test server, read without blocking a thread of Swift's pool
    /// (the server's own connections are handled there).
    final class RawConnection: @unchecked Sendable {
        let fd: Int32
        /// To `localhost` as the test server binds it: IPv4 or IPv6, whichever answers.
        init(port: Int) throws {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo("localhost", String(port), &hints, &list) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
            defer { freeaddrinfo(list) }
            var entry = list
            while let a = entry {
                let fd = socket(a.pointee.ai_family, a.pointee.ai_socktype, a.pointee.ai_protocol)
                if fd >= 0 && connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 { self.fd = fd; return }
                if fd >= 0 { close(fd) }
                entry = a.pointee.ai_next
            }
            throw POSIXError(.ECONNREFUSED)
        }
        deinit { close(fd) }
        func send(_ text: String) { _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, 0) } }
        /// What has arrived: bytes, nil for nothing yet, or [] when the server closed the connection.
        func receive() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { return Array(buffer[0..<n]) }
            if n == 0 { return [] }
            return errno == EAGAIN || errno == EWOULDBLOCK ? nil : []
        }
        /// The first bytes the server sends within `limit` seconds.
        func firstBytes(limit: Double) async throws -> String {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(limit) {
                if let bytes = receive() { return String(decoding: bytes, as: UTF8.self) }
                try await Task.sleep(for: .milliseconds(20))
            }
            return ""
        }
        /// Seconds until the server closed the connection (reading whatever it sends), or nil if it stayed open for `limit` s.
        func secondsUntilClosed(limit: Double) async throws -> Double? {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(limit) {
                if let bytes = receive(), bytes.isEmpty {
                    let took = ContinuousClock.now - start
                    return Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    @Test func aRequestHeadNeverFinishedAndAnIdleConnectionAreClosedButALiveStreamIsNot() async throws {
        let server = try await makeServer { $0.idleTimeout = .seconds(3) }
        // Made in the store: a server's services run once (a test run before this one would end them).
        let owner = try await server.owner()
        let g = try await server.store.createGallery(name: "Idle", owner: owner.account.id).id
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            // Half a request head, then silence: closed after the timeout, without an answer.
            let slow = try RawConnection(port: port)
            slow.send("GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            let closedAfter = try #require(try await slow.secondsUntilClosed(limit: 20), "a half-sent request head kept its connection")
            #expect(closedAfter >= 2 && closedAfter < 12, "\(closedAfter) s")

            // A whole request answered, then nothing: the kept-alive connection is closed too.
            let idle = try RawConnection(port: port)
            idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let answer = try await idle.firstBytes(limit: 15)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            let idleClosed = try await idle.secondsUntilClosed(limit: 20)
            #expect(idleClosed != nil, "an idle kept-alive connection stayed open")

            // A live stream is an answer under way: open well past the timeout.
            let stream = try RawConnection(port: port)
            stream.send("GET /api/galleries/\(g)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(testOwnerToken)\r\n\r\n")
            let streamed = try await stream.firstBytes(limit: 15)
            #expect(streamed.hasPrefix("HTTP/1.1 200"), "\(streamed)")
            let streamClosed = try await stream.secondsUntilClosed(limit: 7)
            #expect(streamClosed == nil, "a live stream was cut by the idle timeout")
        }
    }
}
