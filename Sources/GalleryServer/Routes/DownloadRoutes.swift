import Foundation
import Hummingbird
import ZIPFoundation
import GalleryCore
import GalleryStore

/// "Download as zip" (B8): the gallery's originals in the arranged order, each file name
/// prefixed with its position (`0001-Apple.jpg`), so a file browser shows the curated order.
struct DownloadRoutes {
    let server: GalleryServer

    func register(_ api: RouterGroup<GalleryRequestContext>) {
        api.get("galleries/:gallery/download") { _, context in
            let gallery = try context.id("gallery")
            let snapshot = try await server.store.snapshot(gallery)
            let url = server.store.files.temporaryURL()
            do {
                try Self.write(snapshot, files: server.store.files, to: url)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw error
            }
            return try Self.zipResponse(streaming: url, fileName: "\(Self.fileName(snapshot.gallery.name)).zip")
        }
    }

    /// A zip written to a temporary file, sent a MiB at a time (never whole in memory: an export of
    /// a 300 MB gallery held ~575 MB per request before, the attacker review of session 27) and
    /// removed once sent, abandoned, or dropped unsent (`BodyResources`).
    static func zipResponse(streaming url: URL, fileName: String) throws -> Response {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            try? FileManager.default.removeItem(at: url)
            throw error
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        let resources = BodyResources { try? handle.close(); try? FileManager.default.removeItem(at: url) }
        let body = ResponseBody { writer in
            defer { resources.release() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "application/zip", .contentLength: "\(size)", .cacheControl: "private, no-store",
                                               .contentDisposition: "attachment; filename=\"\(fileName)\""],
                        body: body)
    }

    /// Ready items with an original, numbered across sections in reading order.
    static func write(_ snapshot: GallerySnapshotJSON, files: ImageFiles, to url: URL) throws {
        let archive = try Archive(url: url, accessMode: .create)
        let items = snapshot.sections.flatMap(\.items).filter { $0.state == .ready && $0.fileHash != nil }
        let width = max(4, String(items.count).count)
        for (index, item) in items.enumerated() {
            let hash = item.fileHash!
            guard files.exists(hash, "original") else { continue }
            let position = String(repeating: "0", count: max(0, width - String(index + 1).count)) + String(index + 1)
            let ext = Self.fileExtension(try Self.head(files.url(hash, "original")))
            var title = fileName((item.title as NSString).deletingPathExtension)
            if title.isEmpty { title = "image" }
            // Photos are compressed already: stored as they are.
            try archive.addEntry(with: "\(position)-\(title).\(ext)", fileURL: files.url(hash, "original"), compressionMethod: .none)
        }
    }

    /// A name safe in a zip and on every file system: no separators, no control characters.
    static func fileName(_ text: String) -> String {
        let cleaned = text.unicodeScalars.map { s -> String in
            if CharacterSet.controlCharacters.contains(s) || "/\\:*?\"<>|".unicodeScalars.contains(s) { return "_" }
            return String(s)
        }.joined()
        return String(cleaned.trimmingCharacters(in: .whitespaces).prefix(80))
    }

    static func head(_ url: URL) throws -> [UInt8] {
        let h = try FileHandle(forReadingFrom: url)
        defer { try? h.close() }
        return [UInt8](try h.read(upToCount: 16) ?? Data())
    }

    static func fileExtension(_ head: [UInt8]) -> String {
        switch ImageRoutes.sniff(head) {
        case "image/jpeg": return "jpg"
        case "image/png": return "png"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        default: return "bin"
        }
    }
}

/// The page's addresses: its own (`/`, `/index.html`), the first-account form and share links
/// all serve the page (`PageDocument`), which reads what it needs from the address.
struct PageRoutes {
    let server: GalleryServer

    func register(_ router: Router<GalleryRequestContext>) {
        for path in ["/", "index.html", "setup", "s/:token"] {
            router.get(RouterPath(path)) { _, _ in try PageDocument.response(webFolder: server.configuration.webFolder) }
        }
    }
}
