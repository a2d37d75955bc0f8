import Foundation
import GRDB

/// What `backup(to:)` copied.
public struct BackupSummary: Sendable {
    public var galleries = 0
    public var items = 0
    public var files = 0
    public var bytes: Int64 = 0
    /// Image folders the copied database refers to that were gone (purged while the copy ran).
    public var missing: [String] = []
}

extension GalleryStore {
    /// A consistent copy of the data folder in `destination`, while the server goes on: first the
    /// database through SQLite's online backup (one snapshot, writers are not stopped), then the
    /// image folders that snapshot refers to. Image files never change once written (content
    /// addresses, written to a temporary name and renamed), so copying them after the snapshot
    /// finds every file it names, unless a purge removed one meanwhile (reported in `missing`).
    /// `destination` must not hold a data folder already.
    public func backup(to destination: URL, progress: ((Int, Int) -> Void)? = nil) throws -> BackupSummary {
        guard let sqlite = database as? SQLiteDatabase else {
            throw StoreError.invalid("this store is on PostgreSQL: back its database up with pg_dump (docs/storage.md)")
        }
        try refuseDestinationInsideDataFolder(destination)
        let fm = FileManager.default
        let databaseURL = destination.appendingPathComponent("gallery.sqlite")
        guard !fm.fileExists(atPath: databaseURL.path) else {
            throw StoreError.invalid("\(destination.path) holds a data folder already: back up into a new folder")
        }
        try Self.makePrivateFolder(destination)
        try Self.makePrivateFile(databaseURL)
        var summary = BackupSummary()
        let copy = try DatabaseQueue(path: databaseURL.path)
        try sqlite.pool.backup(to: copy)
        let hashes = try copy.read { db -> [String] in
            summary.galleries = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM gallery") ?? 0
            summary.items = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0
            return try String.fetchAll(db, sql: "SELECT DISTINCT fileHash FROM item WHERE fileHash IS NOT NULL ORDER BY fileHash")
        }
        try copy.close()
        try copyImages(hashes, into: destination, summary: &summary, progress: progress)
        return summary
    }

    /// A backup holds password, session and token hashes and TOTP secrets: a destination folder
    /// made here is its owner's only (0700; one that exists keeps its mode), …
    static func makePrivateFolder(_ folder: URL) throws {
        guard !FileManager.default.fileExists(atPath: folder.path) else { return }
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// … and the database file is made empty with mode 0600 before SQLite or pg_dump writes into
    /// it (both keep the mode of a file that exists; SQLite takes an empty file as a new database).
    static func makePrivateFile(_ file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw StoreError.invalid("cannot write \(file.path)")
        }
    }

    /// The image folders of `hashes` copied from this store's images into `destination/images`
    /// (a temporary name, then renamed); folders gone meanwhile (a purge) are listed in `missing`.
    func copyImages(_ hashes: [String], into destination: URL, summary: inout BackupSummary, progress: ((Int, Int) -> Void)?) throws {
        let fm = FileManager.default
        let images = try ImageFiles(root: destination.appendingPathComponent("images"))
        for (index, hash) in hashes.enumerated() where ImageFiles.isHash(hash) {
            progress?(index, hashes.count)
            let source = files.folder(hash)
            guard let names = try? fm.contentsOfDirectory(atPath: source.path) else {
                summary.missing.append(hash)
                continue
            }
            let target = images.folder(hash)
            try fm.createDirectory(at: target, withIntermediateDirectories: true)
            for name in names.sorted() where !name.hasPrefix(".") && !fm.fileExists(atPath: target.appendingPathComponent(name).path) {
                let temporary = images.root.appendingPathComponent("tmp").appendingPathComponent(UUID().uuidString)
                do {
                    try fm.copyItem(at: source.appendingPathComponent(name), to: temporary)
                } catch where !fm.fileExists(atPath: source.appendingPathComponent(name).path) {
                    continue // purged between the listing and the copy
                }
                try fm.moveItem(at: temporary, to: target.appendingPathComponent(name))
                summary.files += 1
                summary.bytes += Int64((try? fm.attributesOfItem(atPath: target.appendingPathComponent(name).path)[.size] as? Int) ?? 0)
            }
        }
        progress?(hashes.count, hashes.count)
    }
}

extension GalleryStore {
    /// A backup inside the data folder it copies would be lost with that folder, and copied
    /// again into each later backup of it (or, into `images/`, mixed into the images): refused,
    /// as is the data folder itself. Symbolic links are followed, so a link that points inside
    /// is refused too.
    func refuseDestinationInsideDataFolder(_ destination: URL) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw StoreError.invalid("\(destination.path) is not a folder: back up into a new folder")
        }
        let data = Self.realPath(files.root.deletingLastPathComponent())
        let target = Self.realPath(destination)
        if target == data || target.hasPrefix(data.hasSuffix("/") ? data : data + "/") {
            throw StoreError.invalid("\(destination.path) is inside the data folder \(data): back up to a folder outside it (another disk, ideally)")
        }
    }

    /// The absolute path with symbolic links resolved, for a path whose last components may not
    /// exist yet (the deepest existing ancestor is resolved, the rest appended).
    static func realPath(_ url: URL) -> String {
        var existing = url.standardizedFileURL
        var rest: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path), existing.pathComponents.count > 1 {
            rest.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var resolved = existing.path
        if let c = realpath(existing.path, nil) { resolved = String(cString: c); free(c) }
        return rest.reduce(resolved) { ($0.hasSuffix("/") ? $0 : $0 + "/") + $1 }
    }
}
