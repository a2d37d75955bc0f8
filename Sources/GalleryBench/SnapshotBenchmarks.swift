import Foundation
import GalleryCore
import GalleryServer
import GalleryStore
import NIOCore

/// Reading a whole gallery for a page load: the nested snapshot encoded by `JSONEncoder` (what
/// `GET /api/galleries/:g` answers) beside the columnar snapshot (`GET …/columns`, uncached),
/// each from the same SQLite file, median of several runs.
func runSnapshotBenchmarks(_ o: BenchOptions) async throws {
    print("")
    print("### Whole-gallery read for a page load, \(o.items) items in \(o.sections) sections, \(o.hashes) distinct images")
    let folder = temporaryFolder("snapshot")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try GalleryStore(folder: folder)
    let per = o.items / o.sections
    // A few hundred distinct images, as a gallery of copies has (`--hashes` for more: a camera roll has one per
    // item); SHA-256-like hex so that they compress as real content addresses do.
    let hashes = (0..<o.hashes).map { n -> String in
        var state = UInt64(n) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<4).map { _ -> String in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let hex = String(state, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
    let sections = (0..<o.sections).map { s in
        (title: "S\(s)", items: (0..<per).map { i in
            NewItem(title: "IMG_\(s)_\(i).jpg", fileHash: hashes[(s * per + i) % hashes.count], width: 400 + i % 600, height: 300, state: .ready)
        })
    }
    let (gallery, _) = try await store.importGallery(name: "Bench", sections: sections)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes] // as the server's JSONIO
    func median(_ runs: Int, _ body: () async throws -> Int) async throws -> (Double, Int) {
        var times: [Double] = []
        var bytes = 0
        for _ in 0..<runs {
            let t = nowSeconds()
            bytes = try await body()
            times.append(nowSeconds() - t)
        }
        times.sort()
        return (times[times.count / 2], bytes)
    }
    let (readFull, _) = try await median(5) { try await store.snapshot(gallery.id).sections.count }
    let (full, fullBytes) = try await median(5) { try encoder.encode(try await store.snapshot(gallery.id)).count }
    let (readColumns, _) = try await median(5) { try await store.columns(gallery.id).count }
    let (columns, columnBytes) = try await median(5) { try await store.columns(gallery.id).json().count }
    print("")
    print("| answer | read from SQLite | read + encode | bytes |")
    print("| --- | ---: | ---: | ---: |")
    print("| nested snapshot, `JSONEncoder` (`GET /api/galleries/:g`) | \(ms(readFull)) | \(ms(full)) | \(fullBytes) |")
    print("| columns, hand-written JSON (`GET …/columns`, uncached) | \(ms(readColumns)) | \(ms(columns)) | \(columnBytes) |")
    print("speed-up \(String(format: "%.1f", full / columns))×, \(String(format: "%.1f", Double(fullBytes) / Double(columnBytes)))× fewer bytes")
    // What a browser downloads (it accepts gzip): the body gzipped once per version, in the background.
    let body = ByteBuffer(bytes: try await store.columns(gallery.id).json())
    let (gzipTime, gzipBytes) = try await median(5) { try ColumnsCompression.gzip(body).readableBytes }
    print("")
    print("| columns body | bytes | MB | gzip time (once per version, background) |")
    print("| --- | ---: | ---: | ---: |")
    print("| as JSON | \(columnBytes) | \(String(format: "%.1f", Double(columnBytes) / 1e6)) | – |")
    print("| gzipped (what a browser downloads) | \(gzipBytes) | \(String(format: "%.1f", Double(gzipBytes) / 1e6)) | \(ms(gzipTime)) |")
    print("gzip: \(String(format: "%.1f", Double(columnBytes) / Double(gzipBytes)))× fewer bytes")
    // The binary body's encoding alone (the columns already in memory): what a body at a new
    // version costs besides the rows it reads.
    let held = try await store.columns(gallery.id)
    let (encodeTime, binaryBytes) = try await median(5) { held.binary().count }
    print("binary body (GCB2): \(binaryBytes) bytes, encoded in \(ms(encodeTime))")

    // Issue 15.2: a body at a newer version, made from the columns kept at an older one and what
    // changed since (the live order and the changed items' rows) beside a read of the whole gallery.
    let snapshot = try await store.snapshot(gallery.id)
    let ids = snapshot.sections.flatMap { $0.items.map(\.id) }, sectionIds = snapshot.sections.map(\.id)
    print("")
    print("| columns at a newer version (binary body) | read from SQLite + encode | from the columns kept + encode | speed-up | rows read |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for changes in [1, 100, 1_000] {
        let old = try await store.columns(gallery.id)
        for k in 0..<changes {
            let id = ids[(k * 7_919) % ids.count]
            if k % 10 == 9 {
                _ = try await store.apply(gallery: gallery.id, [.renameItem(id, title: "renamed \(k)")])
            } else {
                _ = try await store.apply(gallery: gallery.id, [.move(items: [id], to: .index(section: sectionIds[k % sectionIds.count], index: k % 50))])
            }
        }
        let (fullTime, _) = try await median(5) { try await store.columns(gallery.id).binary().count }
        let (updateTime, _) = try await median(5) {
            guard let c = try await store.columns(gallery.id, updating: old) else { fatalError("outside the catch-up window") }
            return c.binary().count
        }
        print("| \(changes) versions later (\(changes / 10) renamed items) | \(ms(fullTime)) | \(ms(updateTime)) | \(String(format: "%.1f", fullTime / updateTime))× | \(o.items) vs \(changes / 10) |")
    }
}
