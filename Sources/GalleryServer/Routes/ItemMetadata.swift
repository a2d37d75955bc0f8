import Foundation
import GalleryCore
import GalleryStore
import Imaging

/// `GET /api/items/:item/metadata` (issue 12): what the detail view shows. The EXIF fields
/// (capture date, camera, lens, exposure) and the location go to members, and to a share-link
/// visitor only when the link shows metadata; everyone who may see the item gets its size.
struct ItemMetadata: Encodable {
    var width: Int?
    var height: Int?
    /// Bytes of the original as uploaded.
    var fileSize: Int?
    var captured: String?
    var camera: String?
    var lens: String?
    var exposure: String?
    var aperture: String?
    var iso: Int?
    var focalLength: String?
    var latitude: Double?
    var longitude: Double?
    /// False when the caller may not see EXIF or location (a link that hides metadata).
    var exif: Bool

    static func of(_ item: ItemJSON, server: GalleryServer, caller: Identity) async throws -> ItemMetadata {
        let showsExif = caller.link.map { $0.showMetadata } ?? true
        var answer = ItemMetadata(width: item.width, height: item.height, exif: showsExif)
        guard let hash = item.fileHash, item.state == .ready else { return answer }
        let files = server.store.files
        answer.fileSize = (try? FileManager.default.attributesOfItem(atPath: files.url(hash, "original").path)[.size] as? Int) ?? nil
        guard showsExif, let metadata = try await photoMetadata(hash, files: files) else { return answer }
        answer.captured = metadata.captured
        answer.camera = metadata.camera
        answer.lens = metadata.lens
        answer.exposure = metadata.exposure
        answer.aperture = metadata.aperture
        answer.iso = metadata.iso
        answer.focalLength = metadata.focalLength
        answer.latitude = metadata.latitude
        answer.longitude = metadata.longitude
        return answer
    }

    /// The EXIF fields of a stored original: `meta.json` beside its thumbnails, else read once
    /// from the original and kept there (ingested before metadata was kept); nil without an original.
    static func photoMetadata(_ hash: String, files: ImageFiles) async throws -> PhotoMetadata? {
        if let data = try? Data(contentsOf: files.url(hash, "meta.json")), let m = try? JSONDecoder().decode(PhotoMetadata.self, from: data) {
            return m
        }
        guard files.exists(hash, "original") else { return nil }
        let bytes = try files.read(hash, "original")
        let metadata = try await Ingestor.offload { PhotoMetadata.read(bytes) }
        try? files.write(Array(try JSONIO.encoder.encode(metadata)), hash, "meta.json")
        return metadata
    }
}
