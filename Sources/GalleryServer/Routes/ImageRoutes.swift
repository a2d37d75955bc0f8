import Foundation
import Hummingbird
import GalleryStore
import Imaging

/// Originals and thumbnails by content hash (F23): the bytes behind a URL never change, so
/// they are served with a strong ETag (the hash) and `immutable`, and a revalidation is a 304.
/// They are private photos behind access control (`AccessRule.image`): `private`, so a shared
/// proxy cache never keeps them for the next visitor.
struct ImageRoutes {
    let server: GalleryServer

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("images/:hash/:name") { request, context in
            let hash = context.parameters.get("hash") ?? ""
            let name = context.parameters.get("name") ?? ""
            guard ImageFiles.isHash(hash) else { throw APIError(.badRequest, "\"\(hash)\" is not an image hash") }
            guard ["grid.jpg", "detail.jpg", "original"].contains(name) else {
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
            var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, max-age=31536000, immutable"]
            if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag }) == true {
                return Response(status: .notModified, headers: headers)
            }
            let bytes = try files.read(hash, name)
            headers[.contentType] = name.hasSuffix(".jpg") ? "image/jpeg" : Self.sniff(bytes)
            headers[.contentLength] = "\(bytes.count)"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    static func sniff(_ b: [UInt8]) -> String {
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if b.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if b.count > 12 && b[8..<12].elementsEqual(Array("WEBP".utf8)) { return "image/webp" }
        return "application/octet-stream"
    }
}
