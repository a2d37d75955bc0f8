import Foundation
import GalleryCore
import GalleryStore
import Imaging

/// The gallery a newcomer sees on first start: the seed's twelve titles as pictures drawn by
/// libvips in varied aspect ratios, and a second section.
enum SampleGallery {
    struct Picture {
        var title: String; var width: Int; var height: Int; var rgb: (Double, Double, Double)
        /// Drawn instead of the title when no installed font can draw it (the tile is never blank).
        var fallback: String? = nil
    }

    static let seed: [Picture] = [
        Picture(title: "Apple", width: 800, height: 800, rgb: (220, 60, 50)),
        Picture(title: "Banana", width: 1200, height: 600, rgb: (240, 200, 60)),
        Picture(title: "Cherry", width: 600, height: 900, rgb: (170, 20, 60)),
        Picture(title: "Date", width: 900, height: 600, rgb: (140, 90, 50)),
        Picture(title: "Dragon", width: 1000, height: 700, rgb: (60, 160, 90)),
        Picture(title: "Sheep", width: 700, height: 700, rgb: (200, 200, 190)),
        Picture(title: "V-Malicious", width: 600, height: 1000, rgb: (120, 40, 160)),
        Picture(title: "X-Code", width: 1100, height: 700, rgb: (40, 120, 220)),
        Picture(title: "GreatWall", width: 1600, height: 600, rgb: (130, 120, 100)),
        Picture(title: "TaiTan", width: 700, height: 1050, rgb: (60, 70, 90)),
        Picture(title: "Milk", width: 640, height: 800, rgb: (225, 225, 235)),
        Picture(title: "🥸", width: 800, height: 800, rgb: (250, 150, 70), fallback: "Disguise"),
    ]

    static let more: [Picture] = [
        Picture(title: "Sunrise", width: 1500, height: 700, rgb: (250, 120, 60)),
        Picture(title: "Tower", width: 500, height: 1100, rgb: (90, 110, 140)),
        Picture(title: "Lake", width: 1000, height: 750, rgb: (50, 130, 170)),
        Picture(title: "Meadow", width: 900, height: 900, rgb: (100, 170, 70)),
    ]

    static func create(in store: GalleryStore, maxPixels: Int) async throws -> GalleryInfo {
        let gallery = try await store.createGallery(name: "Sample gallery", firstSection: "Seed 000")
        let first = try await store.snapshot(gallery.id).sections[0].id
        let created = try await store.apply(gallery: gallery.id, [.createSection(title: "More pictures", index: nil)])
        try await add(seed, to: first, gallery: gallery.id, store: store, maxPixels: maxPixels)
        try await add(more, to: created.createdSections[0], gallery: gallery.id, store: store, maxPixels: maxPixels)
        return try await store.gallery(gallery.id)
    }

    static func add(_ pictures: [Picture], to section: Int64, gallery: Int64, store: GalleryStore, maxPixels: Int) async throws {
        var items: [NewItem] = []
        for p in pictures {
            let jpeg = try SampleImages.jpeg(width: p.width, height: p.height, red: p.rgb.0, green: p.rgb.1, blue: p.rgb.2, title: p.title,
                                             fallback: p.fallback)
            let hash = try store.files.storeOriginal(jpeg)
            let info = try Thumbnails.ensure(hash: hash, bytes: jpeg, files: store.files, limits: ImageLimits(maxPixels: maxPixels))
            items.append(NewItem(title: p.title, fileHash: hash, width: info.width, height: info.height, state: .ready))
        }
        _ = try await store.apply(gallery: gallery, [.insert(items, at: .end(section: section))], payload: ["op": "sample"])
    }
}
