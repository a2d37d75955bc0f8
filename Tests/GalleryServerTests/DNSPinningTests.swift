import Foundation
import Testing
import AsyncHTTPClient
import Hummingbird
import HummingbirdTesting
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import GalleryServer

/// DNS rebinding: the fetch connects to the address the guard checked; the name is never
/// resolved a second time. The names used here exist only in the test's resolver, so a fetch
/// that resolved them again (through the system) could not connect at all.
@Suite(.serialized) struct DNSPinningTests {
    /// A resolver that answers `first` on the first lookup of a name and `later` afterwards
    /// (what a rebinding DNS server does), counting lookups.
    final class RebindingResolver: Sendable {
        let lookups = Mutex<[String]>([])
        let answers: [String: (first: [IPAddress], later: [IPAddress])]
        init(_ answers: [String: (first: [IPAddress], later: [IPAddress])]) { self.answers = answers }
        func resolve(_ host: String) -> [IPAddress] {
            let n = lookups.withLock { l in l.append(host); return l.filter { $0 == host }.count }
            guard let a = answers[host] else { return [] }
            return n == 1 ? a.first : a.later
        }
    }

    func fetcher(_ resolver: RebindingResolver, allowPrivate: Bool = true) -> ImageFetcher {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // Pinning is tested here, not timing: limits wide enough for a machine busy with the
        // other suites (a 1 s connect timeout to loopback failed once in CI with every core busy).
        // A refused address (::1 at the test server's port) is skipped at once, not by timeout.
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return ImageFetcher(configuration: configuration, urlGuard: URLGuard(allowPrivate: allowPrivate, resolver: { resolver.resolve($0) }),
                            maxBytes: 1 << 20, timeout: .seconds(60))
    }

    static let loopback = IPAddress.v4([127, 0, 0, 1])
    /// An address nothing answers on (TEST-NET-1): where a second lookup would send the fetch.
    static let elsewhere = IPAddress.v4([192, 0, 2, 1])

    @Test func plainHTTPConnectsToTheCheckedAddressAndKeepsTheHostName() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let resolver = RebindingResolver(["pics.rebind.test": ([Self.loopback], [Self.elsewhere])])
        let url = try #require(URL(string: "http://pics.rebind.test:\(images.port)/named.jpg?host=pics.rebind.test"))
        let bytes = try await fetcher(resolver).fetch(url)
        #expect(bytes == TestImageServer.good, "fetched from the checked address, with the name as Host")
        #expect(resolver.lookups.withLock { $0 } == ["pics.rebind.test"], "one lookup: the fetch did not resolve again")
    }

    @Test func everyRedirectHopIsResolvedOnceAndPinned() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        let resolver = RebindingResolver([
            "a.rebind.test": ([Self.loopback], [Self.elsewhere]),
            "b.rebind.test": ([Self.loopback], [Self.elsewhere]),
        ])
        let target = "http://b.rebind.test:\(images.port)/named.jpg?host=b.rebind.test"
        let encoded = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = try #require(URL(string: "http://a.rebind.test:\(images.port)/redirect?to=\(encoded)"))
        let bytes = try await fetcher(resolver).fetch(url)
        #expect(bytes == TestImageServer.good)
        #expect(resolver.lookups.withLock { $0 } == ["a.rebind.test", "b.rebind.test"])
    }

    /// Several checked addresses: the ones that do not answer are skipped, as a connection to the
    /// name would (the test server listens on 127.0.0.1 only; nothing answers on ::1 at its port).
    @Test func anAddressThatDoesNotAnswerIsSkippedForTheNextCheckedOne() async throws {
        let images = try await TestImageServer.start()
        defer { Task { await images.stop() } }
        var v6loopback = [UInt8](repeating: 0, count: 16)
        v6loopback[15] = 1
        let resolver = RebindingResolver(["both.rebind.test": ([.v6(v6loopback), Self.loopback], [Self.elsewhere])])
        let url = try #require(URL(string: "http://both.rebind.test:\(images.port)/named.jpg?host=both.rebind.test"))
        let bytes = try await fetcher(resolver).fetch(url)
        #expect(bytes == TestImageServer.good)
        #expect(resolver.lookups.withLock { $0 } == ["both.rebind.test"])
    }

    @Test func aNameThatAnswersPrivateIsRefusedBeforeAnyConnection() async throws {
        let resolver = RebindingResolver(["inside.rebind.test": ([Self.loopback], [Self.loopback])])
        let url = try #require(URL(string: "http://inside.rebind.test/x.jpg"))
        do {
            _ = try await fetcher(resolver, allowPrivate: false).fetch(url)
            Issue.record("fetched a loopback name")
        } catch {
            #expect(error.reason == "refused: inside.rebind.test (127.0.0.1) is a loopback address")
        }
    }

    /// https: the TLS connection goes to the checked address and still names the host in SNI
    /// (so the certificate is checked for the name). A bare TCP listener stands in for the
    /// server: it records the TLS ClientHello and hangs up, so the fetch fails — after connecting
    /// where it was told to.
    @Test func httpsConnectsToTheCheckedAddressWithTheNameInSNI() async throws {
        let listener = try RawListener()
        let resolver = RebindingResolver(["secure.rebind.test": ([Self.loopback], [Self.elsewhere])])
        let url = try #require(URL(string: "https://secure.rebind.test:\(listener.port)/x.jpg"))
        do {
            _ = try await fetcher(resolver).fetch(url)
            Issue.record("a listener that hangs up cannot serve an image")
        } catch {
            #expect(error.reason.hasPrefix("fetch failed"), "\(error.reason)")
        }
        let hello = listener.wait()
        #expect(hello.first == 0x16, "a TLS handshake record arrived at the checked address")
        #expect(hello.range(of: Data("secure.rebind.test".utf8)) != nil, "SNI names the host")
        #expect(resolver.lookups.withLock { $0 } == ["secure.rebind.test"])
    }
}

/// Accepts one TCP connection on 127.0.0.1, keeps the first bytes it sends, closes it.
final class RawListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let done = DispatchSemaphore(value: 0)
    private var received = Data()

    init() throws {
        struct Failed: Error { var what: String }
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard sock >= 0 else { throw Failed(what: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(sock, 4) == 0 else { close(sock); throw Failed(what: "bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &length) } }
        fd = sock
        port = Int(UInt16(bigEndian: address.sin_port))
        let listening = sock
        Thread.detachNewThread { [self] in
            let connection = accept(listening, nil, nil)
            if connection >= 0 {
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(connection, &buffer, buffer.count, 0)
                if n > 0 { received = Data(buffer[0..<n]) }
                close(connection)
            }
            close(listening)
            done.signal()
        }
    }

    /// The bytes of the first connection (empty when none came within 10 s).
    func wait() -> Data {
        guard done.wait(timeout: .now() + 10) == .success else { return Data() }
        return received
    }
}
