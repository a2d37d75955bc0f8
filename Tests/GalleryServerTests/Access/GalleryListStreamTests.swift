import Foundation
import Testing
import AsyncHTTPClient
import Hummingbird
import HummingbirdTesting
import HTTPTypes
import NIOCore
import GalleryCore
import GalleryServer

/// `GET /api/galleries/events` (issue 13: the picker follows new, renamed and deleted galleries
/// live across devices), over real HTTP with the fixture's callers: each hears only of the
/// galleries the list route would show it.
@Suite(.serialized) struct GalleryListStreamTests {
    static let sameOrigin = [HTTPField(name: .origin, value: "http://localhost"), HTTPField(name: .contentType, value: "application/json")]

    @Test func eachCallerHearsOnlyOfTheGalleriesItMaySee() async throws {
        let f = try await AccessFixture.make()
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        let owner = f.headers[.owner]! + Self.sameOrigin, olga = f.headers[.stranger]! + Self.sameOrigin
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            let ownerList = try await ListWatch.open(port: port, headers: f.headers[.owner]!)
            let olgaList = try await ListWatch.open(port: port, headers: f.headers[.stranger]!)
            let linkList = try await ListWatch.open(port: port, headers: f.headers[.linkViewer]!)
            let tokenList = try await ListWatch.open(port: port, headers: f.headers[.readToken]!)
            // The first event: the list as it is.
            #expect(try await ownerList.next() == ["A"])
            #expect(try await olgaList.next() == ["B"])
            #expect(try await linkList.next() == ["A"])
            #expect(try await tokenList.next() == ["A"])

            // A new gallery: its owner's windows hear of it, nobody else.
            let created = try await client.execute(uri: "/api/galleries", method: .post, headers: owner, body: ByteBuffer(string: #"{"name": "C"}"#))
            #expect(created.status == .created)
            let c = try JSONDecoder().decode(GalleryInfo.self, from: Data(created.body.readableBytesView)).id
            #expect(try await ownerList.next() == ["A", "C"])
            #expect(try await tokenList.next() == ["A", "C"])
            // Olga's next event is her own new gallery (nothing came for C before it).
            #expect(try await client.execute(uri: "/api/galleries", method: .post, headers: olga, body: ByteBuffer(string: #"{"name": "D"}"#)).status == .created)
            #expect(try await olgaList.next() == ["B", "D"])

            // A rename reaches the owner and the link's visitor of that gallery.
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .patch, headers: owner, body: ByteBuffer(string: #"{"name": "A2"}"#)).status == .ok)
            #expect(try await ownerList.next() == ["A2", "C"])
            #expect(try await linkList.next() == ["A2"])

            // Membership: olga made a viewer of C sees it; the owner's list is unchanged (no event).
            #expect(try await client.execute(uri: "/api/galleries/\(c)/members/\(f.users["olga"]!)", method: .put, headers: owner,
                                             body: ByteBuffer(string: #"{"role": "viewer"}"#)).status == .ok)
            #expect(try await olgaList.next() == ["B", "C", "D"])
            #expect(olgaList.lastRoles["C"] == "viewer")

            // A duplicate and a delete.
            #expect(try await client.execute(uri: "/api/galleries/\(c)/duplicate", method: .post, headers: owner, body: ByteBuffer(string: #"{"name": "C copy"}"#)).status == .created)
            #expect(try await ownerList.next() == ["A2", "C", "C copy"])
            #expect(try await client.execute(uri: "/api/galleries/\(c)", method: .delete, headers: owner).status == .noContent)
            #expect(try await ownerList.next() == ["A2", "C copy"])
            #expect(try await olgaList.next() == ["B", "D"])

            // The link's visitor never heard of C, D or the copy: only its gallery's rename.
            #expect(linkList.lists == [["A"], ["A2"]])
            // The owner's events are exactly the changes it may see, one each.
            #expect(ownerList.lists == [["A"], ["A", "C"], ["A2", "C"], ["A2", "C", "C copy"], ["A2", "C copy"]])

            // Signing out everywhere ends the session's stream with `revoked`.
            #expect(try await client.execute(uri: "/api/logout-everywhere", method: .post, headers: olga, body: ByteBuffer(string: "{}")).status.code / 100 == 2)
            _ = try await olgaList.waitForEnd()
            #expect(olgaList.revoked)
            // A revoked link ends its visitor's stream.
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)/links/\(f.links[.linkViewer]!.id)", method: .delete, headers: owner).status.code / 100 == 2)
            _ = try await linkList.waitForEnd()
            #expect(linkList.revoked)
            // The owner's and the token's streams stay open: the server's stop must end them (else this test hangs).
        }
    }

    @Test func sinceSkipsTheFirstEventAndAVersionAheadIsRefused() async throws {
        let f = try await AccessFixture.make()
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        let owner = f.headers[.owner]! + Self.sameOrigin
        try await live.application().test(.live) { client in
            let port = try #require(client.port)
            #expect(try await client.execute(uri: "/api/galleries", method: .post, headers: owner, body: ByteBuffer(string: #"{"name": "C"}"#)).status == .created)
            let first = try await ListWatch.open(port: port, headers: f.headers[.owner]!)
            #expect(try await first.next() == ["A", "C"])
            let version = try #require(first.lastVersion)
            #expect(version == 1)
            let quiet = try await ListWatch.open(port: port, headers: f.headers[.owner]!, since: version)
            #expect(try await client.execute(uri: "/api/galleries/\(f.gallery)", method: .patch, headers: owner, body: ByteBuffer(string: #"{"name": "A2"}"#)).status == .ok)
            #expect(try await quiet.next() == ["A2", "C"], "the first event is the change after `since`, not the list again")
            // The version is read before the list: the list holds every change counted up to it, and
            // may already hold one counted just after (the rename is written, then counted).
            #expect(quiet.lastVersion == 1 || quiet.lastVersion == 2)
            await #expect(throws: StreamRefused.self) { _ = try await ListWatch.open(port: port, headers: f.headers[.owner]!, since: 3) }
            // Nobody signed in: refused.
            await #expect(throws: StreamRefused.self) { _ = try await ListWatch.open(port: port, headers: [:]) }
        }
    }

    /// An open list stream does not keep the server from stopping.
    @Test func theServerStopsWithListStreamsOpen() async throws {
        let f = try await AccessFixture.make()
        let live = try await GalleryServer(configuration: f.server.configuration, logger: quietLogger)
        let start = ContinuousClock.now
        let watch = try await live.application().test(.live) { client -> ListWatch in
            let port = try #require(client.port)
            let watch = try await ListWatch.open(port: port, headers: f.headers[.owner]!)
            #expect(try await watch.next() == ["A"])
            return watch
        }
        _ = try await watch.waitForEnd()
        #expect(ContinuousClock.now - start < .seconds(20))
    }
}

/// An open `GET /api/galleries/events`: the lists (gallery names) of its events in order.
final class ListWatch: @unchecked Sendable {
    private let lock = NSLock()
    private var _lists: [[String]] = []
    private var _roles: [String: String] = [:]
    private var _version: Int64?
    private var _revoked = false
    private var _ended = false
    private var read = 0
    private var task: Task<Void, Never>?

    var lists: [[String]] { lock.withLock { _lists } }
    var lastRoles: [String: String] { lock.withLock { _roles } }
    var lastVersion: Int64? { lock.withLock { _version } }
    var revoked: Bool { lock.withLock { _revoked } }

    struct Event: Decodable { var version: Int64; var galleries: [GalleryInfo] }

    static func open(port: Int, headers: HTTPFields, since: Int64? = nil) async throws -> ListWatch {
        var request = HTTPClientRequest(url: "http://localhost:\(port)/api/galleries/events" + (since.map { "?since=\($0)" } ?? ""))
        request.headers.add(name: "Accept", value: "text/event-stream")
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        guard response.status == .ok else { throw StreamRefused(status: Int(response.status.code)) }
        #expect(response.headers.first(name: "content-type") == "text/event-stream")
        let watch = ListWatch()
        watch.task = Task {
            var buffer = ""
            do {
                for try await chunk in response.body {
                    buffer += String(buffer: chunk)
                    while let end = buffer.range(of: "\n\n") {
                        let block = String(buffer[..<end.lowerBound])
                        buffer.removeSubrange(..<end.upperBound)
                        if block.hasPrefix("event: revoked") { watch.lock.withLock { watch._revoked = true } }
                        guard block.hasPrefix("event: galleries"), let data = block.split(separator: "\n").first(where: { $0.hasPrefix("data: ") }),
                              let event = try? JSONDecoder().decode(Event.self, from: Data(data.dropFirst(6).utf8)) else { continue }
                        watch.lock.withLock {
                            watch._lists.append(event.galleries.map(\.name))
                            watch._roles = Dictionary(uniqueKeysWithValues: event.galleries.map { ($0.name, $0.role ?? "") })
                            watch._version = event.version
                        }
                    }
                }
            } catch {}
            watch.lock.withLock { watch._ended = true }
        }
        return watch
    }

    /// The next event's gallery names, in list order (waits up to `within`).
    func next(within: Duration = .seconds(10)) async throws -> [String] {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if let list = lock.withLock({ () -> [String]? in
                guard _lists.count > read else { return nil }
                read += 1
                return _lists[read - 1]
            }) { return list }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    /// Waits for the server to end the stream.
    func waitForEnd(within: Duration = .seconds(15)) async throws -> Bool {
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline {
            if lock.withLock({ _ended }) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CancellationError()
    }

    func cancel() { task?.cancel() }
}
