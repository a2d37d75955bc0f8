import Foundation
import Testing
import Hummingbird
import HummingbirdTesting
import GalleryCore
import GalleryServer

/// The default server refuses URLs that point inside: no item is created, nothing is fetched.
@Suite struct SSRFTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/x.jpg", "127.0.0.1 is a loopback address"),
        ("http://127.1.2.3/x.jpg", "loopback"),
        ("http://[::1]/x.jpg", "loopback"),
        ("http://[::ffff:127.0.0.1]/x.jpg", "loopback"),
        ("http://[::ffff:7f00:1]/x.jpg", "loopback"),
        ("http://[0:0:0:0:0:ffff:127.0.0.1]:8080/x.jpg", "loopback"),
        ("http://[::127.0.0.1]/x.jpg", "loopback"),
        ("http://[64:ff9b::7f00:1]/x.jpg", "loopback"),
        ("http://[64:ff9b::169.254.169.254]/latest/meta-data/", "cloud metadata"),
        ("http://[64:ff9b:1::a00:1]/x.jpg", "private"),
        ("http://[2002:c0a8:101::1]/x.jpg", "private"),
        ("http://10.1.2.3/x.jpg", "10.1.2.3 is a private address"),
        ("http://172.16.0.9/x.jpg", "private"),
        ("http://192.168.1.1/x.jpg", "private"),
        ("http://100.64.0.1/x.jpg", "private"),
        ("http://[fd12::1]/x.jpg", "private"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
        ("http://169.254.10.10/x.jpg", "link-local"),
        ("http://[fe80::1]/x.jpg", "link-local"),
        ("http://0.0.0.0/x.jpg", "unspecified"),
        ("http://224.0.0.1/x.jpg", "multicast"),
        ("file:///etc/passwd", "scheme \"file\""),
        ("ftp://example.com/x.jpg", "scheme \"ftp\""),
        ("javascript:alert(1)", "scheme \"javascript\""),
        ("gopher://example.com/", "scheme \"gopher\""),
        ("http://user:pw@example.com/x.jpg", "credentials"),
        ("not a url", "refused"),
    ])
    func internalAndNonHTTPURLsAreRefusedWithoutAnItem(url: String, reason: String) async throws {
        let server = try await makeServer { $0.allowPrivateAddresses = false }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let message = try await client.error(.post, "/api/galleries/\(g.gallery.id)/urls", #"{"url": "\#(url)"}"#, status: .unprocessableContent)
            #expect(message.contains(reason), "\(message)")
            #expect(try await client.snapshot(g.gallery.id).sections[0].items.isEmpty)
        }
    }

    /// Names and numeric forms that getaddrinfo turns into 127.0.0.1 (decimal, hex, octal, short forms).
    @Test(arguments: ["http://localhost:9/x.jpg", "http://2130706433/x.jpg", "http://0x7f000001/x.jpg",
                      "http://0177.0.0.1/x.jpg", "http://0177.0.0.01:9/x.jpg", "http://127.1/x.jpg", "http://0x7f.1/x.jpg",
                      "https://localhost:9/x.jpg", "https://017700000001/x.jpg"])
    func namesThatResolveInsideFailTheItemBeforeAnyConnection(url: String) async throws {
        let server = try await makeServer { $0.allowPrivateAddresses = false }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let r = try await client.execute(uri: "/api/galleries/\(g.gallery.id)/urls", method: .post, body: ByteBuffer(string: #"{"url": "\#(url)"}"#))
            if r.status == .unprocessableContent {
                // Foundation may already read the numeric form as an address.
                #expect(String(buffer: r.body).contains("loopback"))
                return
            }
            #expect(r.status == .accepted)
            let item = try JSONDecoder().decode(CreatedItems.self, from: Data(r.body.readableBytesView)).items[0]
            let done = try await client.settled(item.id)
            #expect(done.state == .failed)
            #expect(done.reason?.contains("loopback address") == true, "\(done.reason ?? "")")
        }
    }

    @Test func theAllowPrivateFlagStillRefusesMetadataAndLinkLocal() async throws {
        let server = try await makeServer { $0.allowPrivateAddresses = true }
        try await server.test(.router) { client in
            let g = try await client.newGallery()
            let m1 = try await client.error(.post, "/api/galleries/\(g.gallery.id)/urls", #"{"url": "http://169.254.169.254/"}"#, status: .unprocessableContent)
            #expect(m1.contains("cloud metadata"))
            let m2 = try await client.error(.post, "/api/galleries/\(g.gallery.id)/urls", #"{"url": "http://[fd00:ec2::254]/"}"#, status: .unprocessableContent)
            #expect(m2.contains("cloud metadata"))
        }
    }

    @Test func addressKindsCoverMappedAndCompatibleIPv6() {
        #expect(IPAddress.v4([8, 8, 8, 8]).kind == .publicAddress)
        #expect(IPAddress.v4([172, 32, 0, 1]).kind == .publicAddress)
        #expect(IPAddress.v4([172, 31, 255, 255]).kind == .privateNetwork)
        var mapped = [UInt8](repeating: 0, count: 16)
        mapped[10] = 0xff; mapped[11] = 0xff; mapped[12] = 10; mapped[15] = 1
        #expect(IPAddress.v6(mapped).kind == .privateNetwork)
        var google = [UInt8](repeating: 0, count: 16)
        google[0] = 0x20; google[1] = 0x01; google[2] = 0x48; google[3] = 0x60
        #expect(IPAddress.v6(google).kind == .publicAddress)
        // NAT64 and 6to4 with a public IPv4 inside stay public.
        #expect(IPAddress.v6([0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8]).kind == .publicAddress)
        #expect(IPAddress.v6([0x20, 0x02, 8, 8, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).kind == .publicAddress)
        // Site-local fec0::/10 (deprecated, still routed inside some networks) is private, not public.
        #expect(IPAddress.v6([0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).kind == .privateNetwork)
        #expect(IPAddress.v6([0xfe, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).kind == .privateNetwork)
        #expect(IPAddress.v6([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]).kind == .linkLocal)
    }
}
