import Foundation
import Logging
import GalleryCore
import GalleryStore
import GalleryServer
import Hummingbird
import ServiceLifecycle
import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// How soon an open live stream ends when access is taken away (issue 10: within 1 s): a share
/// link revoked and a member removed through the API (the immediate path), and an account removed
/// in the store as the CLI does beside a running server (the stream's own check, once a second).
/// Each time: from sending the revoking request (or starting the store's write) to the end of the
/// stream as the client sees it, over real HTTP: an upper bound that includes the request itself.
func runAccessBenchmarks(_ o: BenchOptions) async throws {
    let rounds = 20
    print("")
    print("### Live stream closed when access ends (\(rounds) streams each)")
    let folder = temporaryFolder("access")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let owner = try await store.createAccount(name: "owner", passwordHash: try await Secrets.hashPassword("owner password"), admin: true, onlyIfFirst: true)
    let gallery = try await store.createGallery(name: "Shared", owner: owner.id)
    let ownerSession = Secrets.token()
    try await store.createSession(idHash: Secrets.digest(ownerSession), owner: .account(owner.id))

    let running = try await BenchServer.start(folder: folder, portBase: 19_000)
    let base = running.base

    func request(_ method: HTTPMethod, _ path: String, cookie: String, body: String? = nil) async throws -> HTTPClientResponse {
        var r = HTTPClientRequest(url: base + path)
        r.method = method
        r.headers.add(name: "Cookie", value: "gallery_session=\(cookie)")
        r.headers.add(name: "Origin", value: base)
        if let body {
            r.headers.add(name: "Content-Type", value: "application/json")
            r.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response
    }
    /// Opens the stream with `cookie`; answers a task that finishes when the server ends it.
    func openStream(_ cookie: String) async throws -> Task<Double, Error> {
        var r = HTTPClientRequest(url: base + "/api/galleries/\(gallery.id)/events")
        r.headers.add(name: "Cookie", value: "gallery_session=\(cookie)")
        let response = try await HTTPClient.shared.execute(r, timeout: .seconds(120))
        guard response.status == .ok else { throw BenchFailure("stream refused: \(response.status)") }
        return Task {
            var sawRevoked = false
            for try await chunk in response.body where String(buffer: chunk).contains("event: revoked") { sawRevoked = true }
            guard sawRevoked else { throw BenchFailure("the stream ended without a revoked event") }
            return nowSeconds()
        }
    }

    var rows: [(String, [Double])] = []
    // A share link revoked by its owner.
    var linkTimes: [Double] = []
    for _ in 0..<rounds {
        let token = Secrets.token()
        let link = try await store.createLink(gallery: gallery.id, createdBy: owner.id, role: .viewer, tokenHash: Secrets.digest(token),
                                              passwordHash: nil, expiresAt: nil, options: LinkOptions(allowDownload: false, showMetadata: false))
        let visitor = Secrets.token()
        try await store.createSession(idHash: Secrets.digest(visitor), owner: .link(link.id))
        let stream = try await openStream(visitor)
        let revoked = nowSeconds()
        let r = try await request(.DELETE, "/api/galleries/\(gallery.id)/links/\(link.id)", cookie: ownerSession)
        guard r.status == .noContent else { throw BenchFailure("revoke: \(r.status)") }
        linkTimes.append(try await stream.value - revoked)
    }
    rows.append(("share link revoked (DELETE …/links/:id)", linkTimes))
    // A member removed by the owner.
    var memberTimes: [Double] = []
    for i in 0..<rounds {
        let member = try await store.createAccount(name: "member\(i)", passwordHash: "x", admin: false)
        try await store.setMember(gallery: gallery.id, account: member.id, role: .viewer)
        let session = Secrets.token()
        try await store.createSession(idHash: Secrets.digest(session), owner: .account(member.id))
        let stream = try await openStream(session)
        let removed = nowSeconds()
        let r = try await request(.DELETE, "/api/galleries/\(gallery.id)/members/\(member.id)", cookie: ownerSession)
        guard r.status == .noContent else { throw BenchFailure("remove member: \(r.status)") }
        memberTimes.append(try await stream.value - removed)
    }
    rows.append(("member removed (DELETE …/members/:user)", memberTimes))
    // An account removed in the store, as `gallery user remove` does beside the running server.
    var outsideTimes: [Double] = []
    for i in 0..<(rounds / 2) {
        let member = try await store.createAccount(name: "outside\(i)", passwordHash: "x", admin: false)
        try await store.setMember(gallery: gallery.id, account: member.id, role: .viewer)
        let session = Secrets.token()
        try await store.createSession(idHash: Secrets.digest(session), owner: .account(member.id))
        let stream = try await openStream(session)
        // A random moment within the stream's check period.
        try await Task.sleep(for: .milliseconds(Int.random(in: 0..<1000)))
        let removed = nowSeconds()
        try await store.deleteAccount(member.id)
        outsideTimes.append(try await stream.value - removed)
    }
    rows.append(("account removed outside the server (the stream's own check, every 1 s)", outsideTimes))
    await running.stop()

    print("")
    print("| access ended by | streams | p50 | max |")
    print("| --- | ---: | ---: | ---: |")
    for (label, times) in rows {
        let sorted = times.sorted()
        print("| \(label) | \(sorted.count) | \(ms(percentile(sorted, 0.5))) | \(ms(sorted.last!)) |")
    }
}
