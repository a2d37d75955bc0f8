import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import GalleryCore
import GalleryServer

/// `gallery import` through a running server's API (issue 12): each new file is one upload
/// (`POST /api/galleries/:g/uploads`), so every open window sees it arrive; the server makes the
/// thumbnails on its workers and this waits for them to report what failed. Files the gallery
/// already holds (same content hash) are not sent, which is also how a second run resumes.
struct RemoteImport {
    /// The server's address, e.g. `http://127.0.0.1:8080`.
    let base: String
    /// A bearer token with the write scope.
    let token: String
    let client = HTTPClient.shared

    struct Failure: Error, CustomStringConvertible { var description: String }

    private func request(_ method: HTTPMethod, _ path: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        return request
    }

    private func send(_ request: HTTPClientRequest, timeout: TimeAmount = .seconds(60)) async throws -> (status: Int, body: Data) {
        let response: HTTPClientResponse
        do { response = try await client.execute(request, timeout: timeout) } catch {
            throw Failure(description: "the server at \(base) did not answer: \(error)")
        }
        let body = try await response.body.collect(upTo: 1 << 30)
        return (Int(response.status.code), Data(body.readableBytesView))
    }

    /// The message of the server's error answer (`{"error": {"message": …}}`), else the status.
    static func message(_ status: Int, _ body: Data) -> String {
        struct Answer: Decodable { struct E: Decodable { var message: String }; var error: E }
        if let a = try? JSONDecoder().decode(Answer.self, from: body) { return a.error.message }
        return "the server answered \(status)"
    }

    private func json<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, body: String? = nil) async throws -> T {
        var r = request(method, path)
        if let body {
            r.headers.add(name: "Content-Type", value: "application/json")
            r.body = .bytes(ByteBuffer(string: body))
        }
        let (status, data) = try await send(r)
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path): \(Self.message(status, data))")
        }
        return try JSONDecoder().decode(T.self, from: data)
    }

    /// The server answers /healthz (it is the one that wrote server.json, or the one named).
    func answers() async -> Bool {
        guard let (status, _) = try? await send(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(5)) else { return false }
        return status == 200
    }

    func snapshot(_ gallery: Int64) async throws -> GallerySnapshotJSON {
        try await json(GallerySnapshotJSON.self, .GET, "/api/galleries/\(gallery)")
    }

    /// The gallery `id`, else the one called `name` the token's account may see, else a new one.
    func target(id: Int64?, name: String) async throws -> GallerySnapshotJSON {
        if let id { return try await snapshot(id) }
        let all = try await json([GalleryInfo].self, .GET, "/api/galleries")
        if let existing = all.first(where: { $0.name == name }) { return try await snapshot(existing.id) }
        let escaped = String(decoding: try JSONEncoder().encode(["name": name]), as: UTF8.self)
        let made = try await json(GalleryInfo.self, .POST, "/api/galleries", body: escaped)
        return try await snapshot(made.id)
    }

    /// Uploads one file, streamed from disk as a multipart part; the new item (pending).
    func upload(_ file: URL, size: Int64, gallery: Int64) async throws -> Result<ItemJSON, FolderImport.Problem> {
        let boundary = "gallery-import-\(UInt64.random(in: .min ... .max))"
        // The server reads the name up to a quote or a semicolon: those become "_".
        let name = String(file.lastPathComponent.map { "\";\r\n".contains($0) ? "_" : $0 })
        let head = ByteBuffer(string: "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n"
                                  + "Content-Type: application/octet-stream\r\n\r\n")
        let tail = ByteBuffer(string: "\r\n--\(boundary)--\r\n")
        var r = request(.POST, "/api/galleries/\(gallery)/uploads")
        r.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        r.body = .stream(FileParts(head: head, path: file.path, tail: tail),
                         length: .known(Int64(head.readableBytes) + size + Int64(tail.readableBytes)))
        let (status, data) = try await send(r, timeout: .seconds(600))
        guard status == 201 else {
            return .failure(FolderImport.Problem(path: file.path, reason: Self.message(status, data)))
        }
        struct Created: Decodable { var items: [ItemJSON] }
        guard let item = try JSONDecoder().decode(Created.self, from: data).items.first else {
            throw Failure(description: "the server made no item for \(file.path)")
        }
        return .success(item)
    }

    /// Waits until the server has thumbnailed `ids` (ready or failed), telling `settled` of each;
    /// gives up when nothing moves for `patience`. Follows the gallery's changes since `version`
    /// (what changed, not the whole gallery: a 100k gallery's snapshot is tens of megabytes).
    func waitForThumbnails(_ ids: Set<Int64>, gallery: Int64, since version: Int64, patience: Duration = .seconds(300),
                           settled: (ItemJSON) -> Void) async throws {
        struct Answer: Decodable { var changes: ChangesJSON?; var snapshot: GallerySnapshotJSON? }
        var open = ids, seen = version, lastMove = ContinuousClock.now, pause = Duration.milliseconds(100)
        while !open.isEmpty {
            let answer = try await json(Answer.self, .GET, "/api/galleries/\(gallery)/changes?since=\(seen)")
            var items: [ItemJSON] = []
            if let changes = answer.changes {
                items = changes.items
                seen = changes.toVersion
            } else if let snapshot = answer.snapshot {
                // Further back than the server's window: the whole gallery, once.
                items = snapshot.sections.flatMap(\.items)
                open.formIntersection(items.map(\.id))   // removed meanwhile (trash emptied): not waited for
                seen = snapshot.version
            }
            for item in items where open.contains(item.id) && item.state != .pending {
                open.remove(item.id)
                settled(item)
                lastMove = .now
            }
            if open.isEmpty { break }
            if ContinuousClock.now - lastMove > patience {
                throw Failure(description: "the server made no thumbnail for \(Int(patience.components.seconds)) s; \(open.count) items still pending")
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(1))
        }
    }
}

/// A multipart body: the part's head, the file in 1 MiB chunks, the closing boundary.
struct FileParts: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let head: ByteBuffer
    let path: String
    let tail: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        var stage = 0
        let parts: FileParts
        var handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case 0:
                stage = 1
                handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: parts.path))
                return parts.head
            case 1:
                if let data = try handle?.read(upToCount: 1 << 20), !data.isEmpty { return ByteBuffer(bytes: data) }
                try handle?.close()
                handle = nil
                stage = 2
                return parts.tail
            default:
                return nil
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: self) }
}
