import Foundation
import GRDB
import GalleryCore
import GalleryStore

/// `gallery-bench seed --data DIR --like G --items N --sections S [--name NAME]`: a gallery of N
/// items in S sections written straight into a data folder (one transaction, no HTTP), its
/// items cycling through the ready images of gallery G (uploaded and thumbnailed by the real
/// server before). Prints the new gallery's id. For `scripts/bench-page.py` at sizes the API
/// cannot build in reasonable time (a million items).
func runSeed(_ o: BenchOptions) async throws {
    guard let data = o.text("--data"), let like = o.number("--like").map(Int64.init) else {
        FileHandle.standardError.write(Data("usage: gallery-bench seed --data DIR --like GALLERY --items N --sections S [--name NAME]\n".utf8))
        exit(2)
    }
    let store = try GalleryStore(folder: URL(fileURLWithPath: data))
    let images = try await store.pool.read { db in
        try Row.fetchAll(db, sql: """
            SELECT fileHash, width, height FROM item
            WHERE galleryId = ? AND state = 'ready' AND trashed = 0 AND fileHash IS NOT NULL ORDER BY id
            """, arguments: [like])
    }.map { (hash: $0["fileHash"] as String, width: $0["width"] as Int?, height: $0["height"] as Int?) }
    guard !images.isEmpty else {
        FileHandle.standardError.write(Data("gallery-bench seed: gallery \(like) has no ready images to copy\n".utf8))
        exit(2)
    }
    let per = max(1, o.items / max(1, o.sections))
    var made = 0
    let sections = (0..<o.sections).map { s -> (title: String, items: [NewItem]) in
        let count = s == o.sections - 1 ? o.items - made : min(per, o.items - made)
        defer { made += count }
        return (title: "Section \(s + 1)", items: (0..<count).map { i in
            let image = images[(made + i) % images.count]
            return NewItem(title: "IMG_\(made + i).jpg", fileHash: image.hash, width: image.width, height: image.height, state: .ready)
        })
    }
    let t0 = nowSeconds()
    let (gallery, _) = try await store.importGallery(name: o.text("--name") ?? "bench \(o.items)", sections: sections)
    FileHandle.standardError.write(Data("seeded gallery \(gallery.id): \(gallery.itemCount) items in \(sections.count) sections in \(ms(nowSeconds() - t0))\n".utf8))
    print(gallery.id)
}
