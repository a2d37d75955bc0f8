import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import GalleryCore
import GalleryStore

/// Dropped URLs and uploads (F18, B6). Both answer as soon as the item exists: a pending
/// placeholder at the drop position (F19) that background ingestion turns ready or failed.
struct IngestRoutes {
    let server: GalleryServer
    var store: GalleryStore { server.store }

    struct URLDrop: Decodable {
        var url: String
        var title: String?
        var to: Destination?
    }

    struct Created: Encodable {
        var version: Int64
        var items: [ItemJSON]
    }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.post("galleries/:gallery/urls") { request, context in
            let gallery = try context.gallery
            let drop = try await JSONIO.decode(URLDrop.self, from: request, limit: server.configuration.maxJSONBytes)
            let destination = try await destination(drop.to, gallery: gallery)
            func title(_ url: URL) -> String {
                drop.title ?? (url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? (url.host ?? "image") : url.lastPathComponent)
            }
            // An image of this server (dragged from another window of the gallery, F5/F17) is
            // copied from the stored file, as an upload of it would be: no fetch of our own
            // address, which the private-address rule would refuse.
            // Only an image the caller may see: a hash is not a key to another gallery's photos.
            if let own = URL(string: drop.url), let hash = try await ownImageHash(own, authority: request.head.authority),
               store.files.exists(hash, "original"), try await server.access.maySee(image: hash, try context.caller) {
                let result = try await store.apply(gallery: gallery, [.insert([NewItem(title: title(own), sourceURL: own.absoluteString, fileHash: hash)], at: destination)],
                                                   payload: ["op": "dropURL", "url": own.absoluteString, "hash": hash])
                let id = result.createdItems[0]
                try await recordForLink(context, items: [id])
                server.ingestor.enqueue(.process(item: id, hash: hash))
                return try JSONIO.response(Created(version: result.version, items: result.changes.items.filter { $0.id == id }), status: .accepted)
            }
            let url: URL
            do { url = try server.ingestor.urlGuard.checkSyntax(drop.url) } catch let r as URLGuard.Refusal { throw APIError(.unprocessableContent, r.reason) }
            // A fetched image has nowhere to go while the images folder takes no file: refused now
            // (503, as an upload), not a placeholder that waits for the folder.
            if let problem = store.files.writeProblem() { throw problem }
            let title = title(url)
            let result = try await store.apply(gallery: gallery, [.insert([NewItem(title: title, sourceURL: url.absoluteString)], at: destination)],
                                               payload: ["op": "dropURL", "url": url.absoluteString])
            let id = result.createdItems[0]
            try await recordForLink(context, items: [id])
            server.ingestor.enqueue(.fetch(item: id, url: url.absoluteString))
            return try JSONIO.response(Created(version: result.version, items: result.changes.items.filter { $0.id == id }), status: .accepted)
        }

        api.post("galleries/:gallery/uploads") { request, context in
            let gallery = try context.gallery
            let limit = server.configuration.maxUploadBytes
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                throw APIError(.contentTooLarge, "upload of \(length) bytes exceeds the limit of \(limit) bytes")
            }
            guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
                  let boundary = Self.boundary(type) else {
                throw APIError(.unsupportedMediaType, "uploads must be multipart/form-data with a boundary")
            }
            let query = request.uri.queryParameters
            let to = try Self.destination(query)
            let destination = try await destination(to, gallery: gallery)
            let receiver = UploadReceiver(files: store.files, boundary: boundary, limit: limit)
            var created: [ItemJSON] = []
            var version = try await store.gallery(gallery).version
            // Each file becomes a pending item as soon as its part is complete, so the live stream
            // shows progress file by file while the rest of the request is still arriving.
            var next = destination
            // A destination that cannot take the files is refused before any byte is stored.
            try await store.check(destination, gallery: gallery)
            do {
                for try await chunk in request.body {
                    let finished = try receiver.feed(chunk)
                    for file in finished {
                        let r = try await store.apply(gallery: gallery, [.insert([NewItem(title: file.name, fileHash: file.hash)], at: next)],
                                                      payload: ["op": "upload", "file": file.name, "hash": file.hash])
                        let id = r.createdItems[0]
                        try await recordForLink(context, items: [id])
                        created.append(contentsOf: r.changes.items.filter { $0.id == id })
                        version = r.version
                        next = .after(item: id)
                        server.ingestor.enqueue(.process(item: id, hash: file.hash))
                    }
                }
                try receiver.finish()
            } catch {
                // A dropped connection or a refusal: the part being received leaves no temporary file.
                receiver.discard()
                throw error
            }
            guard !created.isEmpty else { throw APIError(.badRequest, "no file part in the upload") }
            return try JSONIO.response(Created(version: version, items: created), status: .created)
        }
    }

    /// What an uploader link adds is remembered: the only items its visitors see.
    func recordForLink(_ context: GalleryRequestContext, items: [Int64]) async throws {
        if let link = context.identity?.link { try await store.recordLinkItems(link: link.id, items: items) }
    }

    /// The requested destination, or the end of the last section (F28).
    func destination(_ to: Destination?, gallery: Int64) async throws -> Destination {
        if let to { return to }
        // One row: reading the whole gallery here cost ~1 GB of allocations per upload at 1M items.
        guard let last = try await store.lastSection(gallery) else {
            throw APIError(.unprocessableContent, "the gallery has no section to drop into")
        }
        return .end(section: last)
    }

    static func destination(_ q: some Sequence<(key: Substring, value: Substring)>) throws -> Destination? {
        var values: [String: String] = [:]
        for (k, v) in q { values[String(k)] = String(v) }
        func int(_ key: String) throws -> Int64? {
            guard let text = values[key] else { return nil }
            guard let v = Int64(text) else { throw APIError(.badRequest, "query parameter \"\(key)\" is not an integer") }
            return v
        }
        let named = ["before", "after", "section"].filter { values[$0] != nil }
        if named.count > 1 { throw APIError(.badRequest, "query names more than one place (\(named.joined(separator: ", "))): give one") }
        if values["index"] != nil && values["section"] == nil { throw APIError(.badRequest, "query parameter \"index\" needs \"section\"") }
        if let b = try int("before") { return .before(item: b) }
        if let a = try int("after") { return .after(item: a) }
        if let s = try int("section") {
            if let i = try int("index") { return .index(section: s, index: Int(i)) }
            return .end(section: s)
        }
        return nil
    }

    /// An original image of this server named by a URL: by its hash
    /// (`http://<the request's host>/api/images/<hash>/original`) or by its item
    /// (`…/api/items/<id>/image/original`, what the page's first load names).
    enum OwnImage: Equatable { case hash(String), item(Int64) }

    static func ownImage(_ url: URL, authority: String?) -> OwnImage? {
        guard let authority, let host = url.host else { return nil }
        let named = url.port.map { "\(host):\($0)" } ?? host
        guard named.lowercased() == authority.lowercased() else { return nil }
        let parts = url.path.split(separator: "/").map(String.init)
        if parts.count == 4, parts[0] == "api", parts[1] == "images", parts[3] == "original", ImageFiles.isHash(parts[2]) {
            return .hash(parts[2])
        }
        if parts.count == 5, parts[0] == "api", parts[1] == "items", parts[3] == "image", parts[4] == "original", let id = Int64(parts[2]) {
            return .item(id)
        }
        return nil
    }

    /// The content hash of the original `url` names on this server (nil: not ours, or no such item
    /// or image). Whether the caller may see it is checked by the caller of this.
    func ownImageHash(_ url: URL, authority: String?) async throws -> String? {
        switch Self.ownImage(url, authority: authority) {
        case let .hash(hash)?: return hash
        case let .item(id)?: return (try? await server.store.item(id))?.fileHash
        case nil: return nil
        }
    }

    static func boundary(_ contentType: String) -> String? {
        for part in contentType.split(separator: ";") {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.lowercased().hasPrefix("boundary=") {
                return String(p.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}

/// Streams multipart file parts to temporary files while hashing them, then moves each to its
/// content address. Nothing is kept in memory beyond one network chunk.
final class UploadReceiver: @unchecked Sendable {
    struct File { var name: String; var hash: String }

    private let files: ImageFiles
    private let parser: MultipartParser
    private let limit: Int
    private var total = 0
    private var headers: [String: String] = [:]
    private var current: (handle: FileHandle, url: URL, digest: ContentHash, size: Int, name: String)?
    private var finished: [File] = []
    /// Files handed out by `feed` so far (they are items by then).
    private var handedOut = 0
    private var failure: Error?

    init(files: ImageFiles, boundary: String, limit: Int) {
        self.files = files
        self.limit = limit
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [unowned self] name, value in headers[name.lowercased()] = value }
        parser.onBody = { [unowned self] buffer in
            guard failure == nil else { return }
            do {
                if current == nil { try open() }
                guard current != nil else { return }
                let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
                current!.digest.update(bytes)
                current!.size += bytes.count
                try current!.handle.write(contentsOf: bytes)
            } catch { failure = error }
        }
        parser.onPartComplete = { [unowned self] in
            do {
                if current == nil { try open() }
                if let c = current {
                    try c.handle.close()
                    var digest = c.digest
                    let hash = digest.finalize()
                    try files.adopt(temporary: c.url, hash: hash)
                    finished.append(File(name: c.name, hash: hash))
                }
            } catch { failure = error }
            current = nil
            headers = [:]
        }
    }

    /// Opens a temporary file for a part that carries a filename (other fields are ignored).
    private func open() throws {
        guard let disposition = headers["content-disposition"], let name = Self.filename(disposition) else { return }
        // A folder that cannot take the file (read-only, full) throws ImageFiles.StorageError: 503/507.
        let (fd, url) = try files.createTemporary()
        current = (FileHandle(fileDescriptor: fd, closeOnDealloc: true), url, ContentHash(), 0, name)
    }

    static func filename(_ disposition: String) -> String? {
        for part in disposition.split(separator: ";") {
            let p = part.trimmingCharacters(in: .whitespaces)
            if p.lowercased().hasPrefix("filename=") {
                let name = String(p.dropFirst("filename=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return name.isEmpty ? "upload" : name
            }
        }
        return nil
    }

    /// Feeds one chunk of the body; returns the files completed by it.
    func feed(_ chunk: ByteBuffer) throws -> [File] {
        total += chunk.readableBytes
        if total > limit {
            discard()
            let stored = handedOut + finished.count
            throw APIError(.contentTooLarge, "upload exceeds the limit of \(limit) bytes"
                           + (stored == 0 ? "" : " (the \(stored == 1 ? "file" : "\(stored) files") before it \(stored == 1 ? "was" : "were") stored)"))
        }
        do { try parser.execute(chunk) } catch { discard(); throw APIError(.badRequest, "malformed multipart body: \(error)") }
        if let failure { discard(); throw failure }
        defer { handedOut += finished.count; finished = [] }
        return finished
    }

    func finish() throws {
        if current != nil { discard(); throw APIError(.badRequest, "malformed multipart body: the last part is incomplete") }
    }

    func discard() {
        if let c = current { try? c.handle.close(); try? FileManager.default.removeItem(at: c.url) }
        current = nil
    }
}
