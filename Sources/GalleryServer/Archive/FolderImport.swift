import Foundation
import GalleryCore
import GalleryStore
#if canImport(Glibc)
import Glibc
#endif

/// `gallery import FOLDER…` straight into a data folder (issue 12): folders recursively, single
/// files as named. Each file is copied to a temporary file while it is hashed (never whole in
/// memory), skipped when the gallery already holds its content, and added at the end of the
/// gallery's last section in batches of `batchSize` — one version each, so a run killed halfway
/// and started again adds nothing twice. Thumbnails are made by `Ingestor.processStored`.
public enum FolderImport {
    /// Extensions looked at inside folders; a file named on the command line is taken as it is
    /// (a wrong extension gets the unsupported-format reason on its tile).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "heic", "heif", "avif", "jxl", "tif", "tiff"]

    /// A file left out, and why (shown in the summary).
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): \(reason)" }
        public init(path: String, reason: String) { self.path = path; self.reason = reason }
    }

    /// What one file came to, reported as it happens (the progress display).
    public enum Outcome: Sendable, Equatable {
        case added, alreadyThere, failed(String)
    }

    public struct Report: Sendable {
        public var gallery: GalleryInfo
        public var added = 0
        public var skipped: [Problem] = []
        public var failed: [Problem] = []
        /// Items of the gallery waiting for thumbnails: this run's and those an interrupted run left.
        public var pending: [ItemJSON] = []

        public init(gallery: GalleryInfo) { self.gallery = gallery }
    }

    // MARK: Collecting

    /// The files under `paths`, folders walked recursively in name order. A folder reached twice
    /// (a symlink loop, two links to one folder) is walked once; what is not a regular file, or
    /// has no image extension inside a folder, is skipped with its reason. A symbolic link inside
    /// a folder is followed only when it stays within the paths named: a folder someone else
    /// filled cannot make the import copy `/etc/shadow` or another user's photos into a gallery.
    public static func collect(_ paths: [String]) -> (files: [URL], skipped: [Problem], failed: [Problem]) {
        var files: [URL] = [], skipped: [Problem] = [], failed: [Problem] = []
        var visited: Set<[UInt64]> = []
        let roots = paths.compactMap(realPath)
        func inside(_ path: String) -> Bool {
            roots.contains { root in path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
        }
        func walk(_ url: URL, named: Bool) {
            var link = stat()
            if !named, lstat(url.path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
                guard let target = realPath(url.path) else {
                    failed.append(Problem(path: url.path, reason: "cannot be read: \(String(cString: strerror(errno)))"))
                    return
                }
                guard inside(target) else {
                    skipped.append(Problem(path: url.path, reason: "a symbolic link to \(target), outside the folders being imported"))
                    return
                }
            }
            var st = stat()
            guard stat(url.path, &st) == 0 else {
                failed.append(Problem(path: url.path, reason: "cannot be read: \(String(cString: strerror(errno)))"))
                return
            }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                guard visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted else {
                    skipped.append(Problem(path: url.path, reason: "folder already walked (a symlink loop or a second link)"))
                    return
                }
                let names: [String]
                do { names = try FileManager.default.contentsOfDirectory(atPath: url.path) } catch {
                    failed.append(Problem(path: url.path, reason: "folder cannot be read: \(error.localizedDescription)"))
                    return
                }
                for name in names.sorted() where !name.hasPrefix(".") {
                    walk(url.appendingPathComponent(name), named: false)
                }
            case S_IFREG:
                if named || imageExtensions.contains(url.pathExtension.lowercased()) {
                    files.append(url)
                } else {
                    skipped.append(Problem(path: url.path, reason: "not an image file name (.\(url.pathExtension))"))
                }
            default:
                skipped.append(Problem(path: url.path, reason: "not a regular file"))
            }
        }
        for path in paths { walk(URL(fileURLWithPath: path), named: true) }
        return (files, skipped, failed)
    }

    /// The absolute path with every symbolic link resolved; nil when it does not resolve (errno set).
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: Importing

    /// The gallery to import into: `id` if given, else the gallery called `name` (so a second run
    /// resumes the first), else a new one.
    public static func target(id: Int64?, name: String, store: GalleryStore) async throws -> GalleryInfo {
        if let id { return try await store.gallery(id) }
        if let existing = try await store.listGalleries().first(where: { $0.name == name }) { return existing }
        return try await store.createGallery(name: name)
    }

    /// Imports `files` into `gallery`. `maxFileBytes` is the upload limit: a bigger file (or one
    /// that grows past it while read) is refused without being copied whole. `queued` gets the
    /// items waiting for thumbnails as they become items — first those an interrupted run left,
    /// then each committed batch — so thumbnailing can run beside the hashing.
    public static func run(_ files: [URL], into gallery: GalleryInfo, store: GalleryStore, maxFileBytes: Int64,
                           batchSize: Int = 50, progress: (URL, Int64, Outcome) -> Void = { _, _, _ in },
                           queued: ([ItemJSON]) -> Void = { _ in }) async throws -> Report {
        var report = Report(gallery: gallery)
        let snapshot = try await store.snapshot(gallery.id)
        guard let section = snapshot.sections.last?.id else { throw StoreError.invalid("gallery \(gallery.id) has no section") }
        var held = Set(snapshot.sections.flatMap { $0.items.compactMap(\.fileHash) })
        report.pending = snapshot.sections.flatMap { $0.items.filter { $0.state == .pending && $0.fileHash != nil } }
        queued(report.pending)
        var batch: [NewItem] = []
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let result = try await store.apply(gallery: gallery.id, [.insert(batch, at: .end(section: section))],
                                               payload: ["op": "import", "items": "\(batch.count)"])
            var made: [ItemJSON] = []
            for id in result.createdItems { made.append(try await store.item(id)) }
            report.pending += made
            queued(made)
            report.added += batch.count
            batch.removeAll()
        }
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? 0
            let outcome: Outcome
            do {
                let hash = try copyHashing(file, into: store.files, limit: maxFileBytes)
                if held.insert(hash).inserted {
                    batch.append(NewItem(title: file.lastPathComponent, fileHash: hash))
                    outcome = .added
                } else {
                    report.skipped.append(Problem(path: file.path, reason: "already in the gallery"))
                    outcome = .alreadyThere
                }
            } catch let p as Problem {
                report.failed.append(p)
                outcome = .failed(p.reason)
            }
            progress(file, size, outcome)
            // The first file goes alone, so thumbnailing starts at once; then `batchSize` at a time.
            if batch.count >= (report.added == 0 ? 1 : batchSize) { try await flush() }
        }
        try await flush()
        return report
    }

    /// The content address of `file`, read in 1 MiB chunks (never whole in memory); each chunk
    /// is also handed to `chunk`. A file that cannot be read, is empty, or is (or grows) larger
    /// than `limit` is a `Problem` with its reason.
    public static func hash(_ file: URL, limit: Int64, chunk: (UnsafeRawBufferPointer) throws -> Void = { _ in }) throws -> String {
        func problem(_ reason: String) -> Problem { Problem(path: file.path, reason: reason) }
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw problem("cannot be read: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        // One 1 MiB buffer for the whole file (a fresh allocation per chunk costs page faults).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var digest = ContentHash(), total: Int64 = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw problem("cannot be read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            total += Int64(n)
            if total > limit { throw problem("larger than the upload limit of \(limit) bytes") }
            let part = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            digest.update(part)
            try chunk(part)
        }
        if total == 0 { throw problem("empty file (0 bytes)") }
        return digest.finalize()
    }

    /// Copies a file into the data folder's temporary folder while hashing it, then moves it to
    /// its content address. Returns the hash.
    static func copyHashing(_ file: URL, into files: ImageFiles, limit: Int64) throws -> String {
        func problem(_ reason: String) -> Problem { Problem(path: file.path, reason: reason) }
        let temporary = files.temporaryURL()
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let output = try? FileHandle(forWritingTo: temporary) else { throw problem("could not write a temporary file in the data folder") }
        let hash: String
        do {
            hash = try Self.hash(file, limit: limit) { try output.write(contentsOf: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0.baseAddress!), count: $0.count, deallocator: .none)) }
            try output.close()
        } catch {
            try? output.close()
            try? FileManager.default.removeItem(at: temporary)
            if let p = error as? Problem { throw p }
            throw problem("could not write a temporary file in the data folder: \(error.localizedDescription)")
        }
        do { try files.adopt(temporary: temporary, hash: hash) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw problem("could not be stored: \(error.localizedDescription)")
        }
        return hash
    }
}

extension FolderImport.Problem: Error {}
