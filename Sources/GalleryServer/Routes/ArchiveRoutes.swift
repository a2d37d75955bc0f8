import Foundation
import Hummingbird
import GalleryStore

/// `GET /api/galleries/:id/export` → zip; `POST /api/galleries/import` (zip body) → the new gallery.
struct ArchiveRoutes {
    let server: GalleryServer

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("galleries/:gallery/export") { _, context in
            let gallery = try context.gallery
            let url = server.store.files.temporaryURL()
            do {
                try await GalleryArchive.export(gallery, store: server.store, to: url)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw error
            }
            return try DownloadRoutes.zipResponse(streaming: url, fileName: "gallery-\(gallery).zip")
        }
        api.post("galleries/import") { request, context in
            var request = request
            let limit = server.configuration.maxUploadBytes
            let body = try await request.collectBody(upTo: limit)
            let url = server.store.files.temporaryURL()
            defer { try? FileManager.default.removeItem(at: url) }
            try Data(body.readableBytesView).write(to: url)
            let name = request.uri.queryParameters.get("name")
            do {
                let limits = GalleryArchive.Limits(maxEntryBytes: Int64(server.configuration.maxUploadBytes),
                                                   maxTotalBytes: Int64(server.configuration.maxImportInflatedBytes))
                var (gallery, items) = try await GalleryArchive.importArchive(at: url, store: server.store, name: name,
                                                                             owner: try context.caller.account!.id, limits: limits)
                gallery.role = "owner"
                server.galleryList.changed()
                for item in items where item.state == .pending {
                    if let hash = item.fileHash { server.ingestor.enqueue(.process(item: item.id, hash: hash)) }
                    else if let source = item.sourceURL { server.ingestor.enqueue(.fetch(item: item.id, url: source)) }
                }
                return try JSONIO.response(gallery, status: .created)
            } catch let r as GalleryArchive.Refusal {
                throw APIError(.unprocessableContent, "import refused: \(r.reason)")
            }
        }
    }
}
