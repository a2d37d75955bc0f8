import Foundation
import ZIPFoundation
import GalleryCore
import GalleryStore

/// Export and import of a gallery as a zip (F24): `manifest.json` (sections, items, titles,
/// source URLs, image hashes) and `images/<sha256>`, the originals. On import every image is
/// hashed again and must match its name; thumbnails are made anew by ingestion.
public enum GalleryArchive {
    public static let format = "gallery-archive/1"

    public struct Manifest: Codable, Sendable {
        public var format: String
        public var name: String
        public var sections: [Section]

        public struct Section: Codable, Sendable {
            public var title: String
            public var items: [Item]
        }
        public struct Item: Codable, Sendable {
            public var title: String
            public var sourceURL: String?
            public var fileHash: String?
            public var width: Int?
            public var height: Int?
            public var state: ItemState
            public var reason: String?
        }
    }

    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "import refused: \(reason)" }
    }

    /// Writes the archive of a gallery to `url`.
    public static func export(_ gallery: Int64, store: GalleryStore, to url: URL) async throws {
        let snapshot = try await store.snapshot(gallery)
        let manifest = Manifest(format: format, name: snapshot.gallery.name, sections: snapshot.sections.map { s in
            Manifest.Section(title: s.title, items: s.items.map {
                Manifest.Item(title: $0.title, sourceURL: $0.sourceURL, fileHash: $0.fileHash, width: $0.width, height: $0.height, state: $0.state, reason: $0.reason)
            })
        })
        try? FileManager.default.removeItem(at: url)
        let archive = try Archive(url: url, accessMode: .create)
        let data = try JSONIO.encoder.encode(manifest)
        try archive.addEntry(with: "manifest.json", type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
            data.subdata(in: Int(position)..<Int(position) + size)
        }
        var added: Set<String> = []
        for s in snapshot.sections {
            for item in s.items {
                guard let hash = item.fileHash, !added.contains(hash), store.files.exists(hash, "original") else { continue }
                added.insert(hash)
                // Images are already compressed: stored as they are.
                try archive.addEntry(with: "images/\(hash)", fileURL: store.files.url(hash, "original"), compressionMethod: .none)
            }
        }
    }

    /// What an archive may unpack to: a zip bomb (a small file that inflates to gigabytes) is
    /// refused from its directory, before anything is inflated, and again while inflating if an
    /// entry's header lied about its size.
    public struct Limits: Sendable {
        /// Largest inflated image (the upload limit: an original could not be bigger when uploaded).
        public var maxEntryBytes: Int64
        /// Largest inflated archive in all.
        public var maxTotalBytes: Int64
        /// Largest inflated ÷ compressed size of an entry over 1 MiB inflated (photos barely compress;
        /// a run of zeros compresses 1000×).
        public var maxRatio: Int64 = 100
        public var maxManifestBytes: Int64 = 16 << 20
        public init(maxEntryBytes: Int64, maxTotalBytes: Int64) {
            self.maxEntryBytes = maxEntryBytes; self.maxTotalBytes = maxTotalBytes
        }
    }

    /// Reads an archive, stores its images (verifying their hashes) and creates the gallery (owned
    /// by `owner` when given) a part at a time (`GalleryStore.importGalleryInParts`): everything is
    /// checked before the first row is written. Returns the gallery and the items that still need
    /// ingestion. Entries are inflated to temporary files while they are hashed, never whole in memory.
    public static func importArchive(at url: URL, store: GalleryStore, name: String?, owner: Int64? = nil,
                                     limits: Limits) async throws -> (GalleryInfo, [ItemJSON]) {
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch { throw Refusal(reason: "not a zip archive") }
        // The directory first: declared sizes and ratios, before anything is inflated.
        var declared: Int64 = 0
        for entry in archive {
            let size = Int64(entry.uncompressedSize), packed = max(1, Int64(entry.compressedSize))
            let limit = entry.path == "manifest.json" ? limits.maxManifestBytes : limits.maxEntryBytes
            if size > limit {
                throw Refusal(reason: "\(entry.path) would inflate to \(size) bytes (limit \(limit))")
            }
            if size > 1 << 20 && size / packed > limits.maxRatio {
                throw Refusal(reason: "\(entry.path) would inflate \(size / packed)× (\(packed) → \(size) bytes): a zip bomb")
            }
            declared += size
            if declared > limits.maxTotalBytes {
                throw Refusal(reason: "the archive would inflate to more than \(limits.maxTotalBytes) bytes")
            }
        }
        guard let entry = archive["manifest.json"] else { throw Refusal(reason: "archive has no manifest.json") }
        var manifestData = Data()
        try extract(entry, from: archive, limit: min(limits.maxManifestBytes, Int64(entry.uncompressedSize))) { manifestData.append($0) }
        let manifest: Manifest
        do { manifest = try JSONDecoder().decode(Manifest.self, from: manifestData) } catch let e as DecodingError {
            throw Refusal(reason: "manifest.json: " + APIError.describe(e))
        }
        guard manifest.format == format else { throw Refusal(reason: "unknown archive format \"\(manifest.format)\"") }
        var stored: Set<String> = []
        for entry in archive where entry.path.hasPrefix("images/") {
            let hash = String(entry.path.dropFirst("images/".count))
            guard ImageFiles.isHash(hash) else { throw Refusal(reason: "unexpected archive entry \(entry.path)") }
            let temporary = store.files.temporaryURL()
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
                  let handle = try? FileHandle(forWritingTo: temporary) else { throw Refusal(reason: "could not write a temporary file") }
            var digest = ContentHash()
            do {
                try extract(entry, from: archive, limit: Int64(entry.uncompressedSize)) { chunk in
                    digest.update(chunk)
                    try handle.write(contentsOf: chunk)
                }
                try handle.close()
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            guard digest.finalize() == hash else {
                try? FileManager.default.removeItem(at: temporary)
                throw Refusal(reason: "image \(hash) does not match its hash")
            }
            try store.files.adopt(temporary: temporary, hash: hash)
            stored.insert(hash)
        }
        let sections = manifest.sections.map { s in
            (title: s.title, items: s.items.map { i -> NewItem in
                if let hash = i.fileHash, stored.contains(hash) {
                    return NewItem(title: i.title, sourceURL: i.sourceURL, fileHash: hash, width: i.width, height: i.height, state: .pending)
                }
                if i.state == .failed || i.sourceURL == nil {
                    return NewItem(title: i.title, sourceURL: i.sourceURL, state: .failed, reason: i.reason ?? "image missing from the archive")
                }
                return NewItem(title: i.title, sourceURL: i.sourceURL, state: .pending)
            })
        }
        return try await store.importGalleryInParts(name: name ?? manifest.name, sections: sections, owner: owner)
    }

    /// Inflates one entry in chunks, refusing it as soon as it passes `limit` bytes (an entry
    /// whose header understated its size). ZIPFoundation checks the CRC at the end.
    static func extract(_ entry: Entry, from archive: Archive, limit: Int64, _ consume: (Data) throws -> Void) throws {
        var inflated: Int64 = 0
        do {
            _ = try archive.extract(entry, bufferSize: 1 << 16, skipCRC32: false) { chunk in
                inflated += Int64(chunk.count)
                if inflated > limit { throw Refusal(reason: "\(entry.path) inflates past its declared \(limit) bytes") }
                try consume(chunk)
            }
        } catch let r as Refusal {
            throw r
        } catch {
            throw Refusal(reason: "\(entry.path) could not be inflated: \(error)")
        }
    }
}
