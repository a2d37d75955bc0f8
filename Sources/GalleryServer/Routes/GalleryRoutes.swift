import Foundation
import Hummingbird
import GalleryCore
import GalleryStore

/// Galleries as documents (F25): list, create, read (snapshot with version), rename, duplicate, delete, trash.
struct GalleryRoutes {
    let server: GalleryServer
    var store: GalleryStore { server.store }

    struct NameBody: Decodable { var name: String? }

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.post("galleries") { request, context in
            let body = try await JSONIO.decode(NameBody.self, from: request, limit: server.configuration.maxJSONBytes)
            guard let name = body.name else { throw APIError(.badRequest, "malformed JSON: missing \"name\" at body") }
            var g = try await store.createGallery(name: name, owner: try context.caller.account?.id)
            g.role = GalleryRole.owner.rawValue
            server.galleryList.changed()
            return try JSONIO.response(g, status: .created)
        }
        // The whole gallery as nested JSON: ~500 bytes an item held in memory while it is written
        // (a 1M gallery is ~500 MB and seconds of a core), so only up to `maxNestedSnapshotItems`;
        // a bigger one is refused with where to read it instead.
        api.get("galleries/:gallery") { _, context in
            let id = try context.gallery
            let info = try await store.gallery(id)
            let limit = server.configuration.maxNestedSnapshotItems
            guard info.itemCount <= limit else {
                throw APIError(.unprocessableContent, "gallery \(id) has \(info.itemCount) items; its nested snapshot is served up to \(limit): "
                               + "read GET /api/galleries/\(id)/columns (the same content as parallel columns)")
            }
            return try JSONIO.response(try await store.snapshot(id))
        }
        // The same snapshot as parallel columns, for the page's first load (SnapshotColumns): JSON,
        // or with ?format=binary the form the page maps as typed arrays; cached per version,
        // revalidated with an ETag, zstd- or gzip-compressed for clients that accept it once the
        // cache has compressed it (in the background).
        api.get("galleries/:gallery/columns") { request, context in
            let id = try context.gallery
            let binary: Bool
            switch request.uri.queryParameters.get("format") {
            case nil, "json": binary = false
            case "binary": binary = true
            case let other?: throw APIError(.badRequest, "format \"\(other)\" is not one of json, binary")
            }
            let key = ColumnsCache.Key(gallery: id, binary: binary)
            let head = try await store.head(id)
            let etag = ColumnsCache.etag(gallery: id, version: head.version, name: head.name, binary: binary)
            var headers: HTTPFields = [.contentType: binary ? "application/octet-stream" : "application/json; charset=utf-8", .eTag: etag,
                                       .cacheControl: "no-cache", .vary: "Accept-Encoding"]
            // Each encoding its own validator (a cache keeps the form it was sent).
            func tagged(_ encoding: String) -> String { String(etag.dropLast()) + (encoding == "gzip" ? "-gz\"" : "-zst\"") }
            if let match = request.headers[.ifNoneMatch], match == etag || match == tagged("gzip") || match == tagged("zstd") {
                headers[.eTag] = match
                return Response(status: .notModified, headers: headers)
            }
            if let cached = server.columnsCache.body(key, version: head.version, name: head.name) {
                var forms: [(String, ByteBuffer)] = []
                if let zstd = cached.zstd { forms.append(("zstd", zstd)) }
                if let gzip = cached.gzip { forms.append(("gzip", gzip)) }
                if let chosen = Self.preferredEncoding(request, among: forms.map(\.0)),
                   let body = forms.first(where: { $0.0 == chosen })?.1 {
                    headers[.eTag] = tagged(chosen)
                    headers[.contentEncoding] = chosen
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
                }
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: cached.body))
            }
            let built = try await server.columnsCache.build(key, store: store)
            headers[.eTag] = ColumnsCache.etag(gallery: id, version: built.version, name: built.name, binary: binary)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: built.body))
        }
        api.patch("galleries/:gallery") { request, context in
            let body = try await JSONIO.decode(NameBody.self, from: request, limit: server.configuration.maxJSONBytes)
            guard let name = body.name else { throw APIError(.badRequest, "malformed JSON: missing \"name\" at body") }
            let renamed = try await store.renameGallery(try context.gallery, name: name)
            server.galleryList.changed()
            return try JSONIO.response(renamed)
        }
        api.post("galleries/:gallery/duplicate") { request, context in
            // The body is optional; one that is sent must be valid (a bad one is refused, not ignored).
            let body = try await JSONIO.decodeOptional(NameBody.self, from: request, limit: server.configuration.maxJSONBytes) ?? NameBody(name: nil)
            guard let me = try context.caller.account else { throw APIError(.forbidden, "a share link cannot copy the gallery") }
            var g = try await store.duplicateGallery(try context.gallery, name: body.name, owner: me.id)
            g.role = GalleryRole.owner.rawValue
            server.galleryList.changed()
            return try JSONIO.response(g, status: .created)
        }
        api.delete("galleries/:gallery") { _, context in
            try await store.deleteGallery(try context.gallery)
            server.access.accessChanged()
            server.galleryList.changed()
            return Response(status: .noContent)
        }
        api.get("galleries/:gallery/trash") { _, context in
            try JSONIO.response(try await store.trash(try context.gallery))
        }
        api.get("items/:item") { _, context in
            try JSONIO.response(try await store.item(try context.id("item")))
        }
        api.get("items/:item/metadata") { _, context in
            try JSONIO.response(try await ItemMetadata.of(try await store.item(try context.id("item")), server: server, caller: try context.caller),
                                headers: [.cacheControl: "private, no-store"])
        }
    }

    /// The encoding to send among `offered` (in the server's order of preference): the one the
    /// request's Accept-Encoding gives the highest weight, the server's order between equals;
    /// `*` stands for any not named; a weight of 0 refuses. Nil: send the body as it is.
    static func preferredEncoding(_ request: Request, among offered: [String]) -> String? {
        guard let accept = request.headers[.acceptEncoding]?.lowercased(), !offered.isEmpty else { return nil }
        var weights: [String: Double] = [:]
        for part in accept.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = fields.first, !name.isEmpty else { continue }
            var q = 1.0
            for field in fields.dropFirst() where field.replacingOccurrences(of: " ", with: "").hasPrefix("q=") {
                q = Double(field.replacingOccurrences(of: " ", with: "").dropFirst(2)) ?? 0
            }
            weights[name] = max(0, min(1, q))
        }
        var best: (name: String, q: Double)?
        for name in offered {
            guard let q = weights[name] ?? weights["*"], q > 0 else { continue }
            if best == nil || q > best!.q { best = (name, q) }
        }
        return best?.name
    }

}

extension GalleryRequestContext {
    func id(_ name: String) throws -> Int64 {
        guard let text = parameters.get(name), let id = Int64(text) else {
            throw APIError(.badRequest, "\(name) id \"\(parameters.get(name) ?? "")\" is not an integer")
        }
        return id
    }

    var gallery: Int64 { get throws { try id("gallery") } }
}
