import Foundation
import Hummingbird
import GalleryStore
import Imaging

/// Originals and thumbnails by content hash (F23): the bytes behind a URL never change, so
/// they are served with a strong ETag (the hash) and `immutable`, and a revalidation is a 304.
/// They are private photos behind access control (`AccessRule.image`): `private`, so a shared
/// proxy cache never keeps them for the next visitor.
///
/// The same files by item (`/api/items/:item/image/:name?v=<content version>`, `AccessRule.item`):
/// what the page's first load names, so that it need not carry every item's hash. With the
/// item's current content version in `v` the URL is as immutable as the hash's; without it (or
/// with another) the answer is revalidated.
struct ImageRoutes {
    let server: GalleryServer
    static let names = ["grid.jpg", "detail.jpg", "original"]

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("images/:hash/:name") { request, context in
            let hash = context.parameters.get("hash") ?? ""
            let name = context.parameters.get("name") ?? ""
            guard ImageFiles.isHash(hash) else { throw APIError(.badRequest, "\"\(hash)\" is not an image hash") }
            return try await serve(hash, name, request, immutable: true)
        }
        api.get("items/:item/image/:name") { request, context in
            let item = try await server.store.item(try context.id("item"))
            let name = context.parameters.get("name") ?? ""
            if name == "original", let link = try context.caller.link, !link.options.allowsDownload {
                throw APIError(.forbidden, "this link does not allow downloads")
            }
            guard let hash = item.fileHash, item.state == .ready else {
                throw APIError(.notFound, "item \(item.id) has no image yet (\(item.state.rawValue))")
            }
            let current = request.uri.queryParameters.get("v").flatMap { UInt32($0) } == item.version
            return try await serve(hash, name, request, immutable: current)
        }
    }

    /// One of an image's files, with its ETag; a revalidation is a 304.
    func serve(_ hash: String, _ name: String, _ request: Request, immutable: Bool) async throws -> Response {
        guard Self.names.contains(name) else {
            throw APIError(.notFound, "unknown image file \"\(name)\" (grid.jpg, detail.jpg, original)")
        }
        let files = server.store.files
        if name == "detail.jpg" && !files.exists(hash, name) {
            // Made on first view (ingestion makes only what the grid needs), then kept.
            let limits = ImageLimits(maxPixels: server.configuration.maxPixels)
            do {
                _ = try await Ingestor.offload { try Thumbnails.detail(hash: hash, files: files, limits: limits) }
            } catch let e as ImagingError {
                throw APIError(.unprocessableContent, "image \(hash) has no detail view: \(e.reason)")
            }
        }
        guard files.exists(hash, name) else { throw APIError(.notFound, "image \(hash) has no \(name)") }
        let etag = "\"\(hash)-\(name)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: immutable ? "private, max-age=31536000, immutable" : "private, no-cache"]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        let bytes = try files.read(hash, name)
        headers[.contentType] = name.hasSuffix(".jpg") ? "image/jpeg" : Self.sniff(bytes)
        headers[.contentLength] = "\(bytes.count)"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func sniff(_ b: [UInt8]) -> String {
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.count > 12 && b[8..<12].elementsEqual(Array("WEBP".utf8)) { return "image/webp" }
        return "application/octet-stream"
    }
}
