import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Content-addressed image files: `images/ab/<sha256>/original`, `grid.jpg`, `detail.jpg`.
/// Files are written to a temporary name and renamed, so a crash never leaves a partial file
/// under its final name.
public struct ImageFiles: Sendable {
    public let root: URL

    public init(root: URL) throws {
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        removeStaleTemporaries()
    }

    /// Temporary files a killed process left behind (an upload cut off mid-file). Only those older
    /// than a day: another process (`gallery import`) may be writing to the same folder right now.
    func removeStaleTemporaries(olderThan age: TimeInterval = 86_400) {
        let tmp = root.appendingPathComponent("tmp")
        let limit = Date().addingTimeInterval(-age)
        for url in (try? FileManager.default.contentsOfDirectory(at: tmp, includingPropertiesForKeys: [.contentModificationDateKey])) ?? [] {
            if let date = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate, date < limit {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }

    public static func isHash(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    public func folder(_ hash: String) -> URL {
        root.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent(hash)
    }

    public func url(_ hash: String, _ name: String) -> URL { folder(hash).appendingPathComponent(name) }

    public func exists(_ hash: String, _ name: String) -> Bool { FileManager.default.fileExists(atPath: url(hash, name).path) }

    /// Stores bytes as the original of their hash; returns the hash.
    @discardableResult
    public func storeOriginal(_ bytes: [UInt8]) throws -> String {
        let hash = ContentHash.hex(bytes)
        if !exists(hash, "original") { try write(bytes, hash, "original") }
        return hash
    }

    /// A file could not be written into the images folder (read-only, full, not a folder…):
    /// the folder and the system's reason. The server answers 503 (507 when the disk is full)
    /// and ingestion tries the item again later; nothing already stored is touched.
    public struct StorageError: Error, CustomStringConvertible, Sendable {
        public var folder: String
        public var code: Int32
        public var reason: String { String(cString: strerror(code)) }
        /// ENOSPC / EDQUOT: no room, rather than no permission.
        public var isFull: Bool { code == ENOSPC || code == EDQUOT }
        public var description: String { "the images folder \(folder) cannot take a file: \(reason)" }
    }

    /// Writes `bytes` as `name` of `hash`: to a temporary file of its own first (a random name in
    /// `tmp/`, so two processes writing the same hash at once never write into one file), then
    /// renamed over the final name. rename(2) replaces atomically: a reader — or an instance
    /// writing the same content-addressed file at the same moment — sees the old file or the new
    /// one, whole, never a part (and a second writer of identical content does not fail, as a
    /// move that refuses an existing target did).
    public func write(_ bytes: [UInt8], _ hash: String, _ name: String) throws {
        try makeFolder(hash)
        let (fd, tmp) = try createTemporary()
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 { if errno == EINTR { continue }; return errno }
                written += n
            }
            return nil
        }
        Glibc.close(fd)
        if let failure { unlink(tmp.path); throw StorageError(folder: root.path, code: failure) }
        try place(tmp, at: url(hash, name))
    }

    /// Moves a finished temporary file (an upload streamed to disk) to its content address.
    public func adopt(temporary: URL, hash: String) throws {
        let target = url(hash, "original")
        if FileManager.default.fileExists(atPath: target.path) { unlink(temporary.path); return }
        try makeFolder(hash)
        try place(temporary, at: target)
    }

    private func makeFolder(_ hash: String) throws {
        do { try FileManager.default.createDirectory(at: folder(hash), withIntermediateDirectories: true) } catch {
            throw StorageError(folder: root.path, code: Self.errnoOf(error) ?? EIO)
        }
    }

    private func place(_ temporary: URL, at target: URL) throws {
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw StorageError(folder: root.path, code: code)
        }
    }

    static func errnoOf(_ error: Error) -> Int32? {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain { return Int32(underlying.code) }
        switch CocoaError.Code(rawValue: ns.code) {
        case .fileWriteNoPermission: return EACCES
        case .fileWriteVolumeReadOnly: return EROFS
        case .fileWriteOutOfSpace: return ENOSPC
        default: return nil
        }
    }

    /// A new temporary file in `tmp/`, open for writing: its name is this process's id and a
    /// random UUID (unique among instances sharing the folder). Throws `StorageError` with the
    /// system's reason when the folder cannot take it.
    public func createTemporary() throws -> (fd: Int32, url: URL) {
        let url = temporaryURL()
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError(folder: root.path, code: errno) }
        return (fd, url)
    }

    public func temporaryURL() -> URL { root.appendingPathComponent("tmp").appendingPathComponent("\(getpid())-\(UUID().uuidString)") }

    /// Why the folder cannot take a new file right now (a temporary file is made and removed), or nil.
    public func writeProblem() -> StorageError? {
        do {
            let (fd, url) = try createTemporary()
            Glibc.close(fd)
            unlink(url.path)
            return nil
        } catch let e as StorageError { return e } catch { return StorageError(folder: root.path, code: EIO) }
    }

    public func read(_ hash: String, _ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(hash, name)))
    }

    public func remove(_ hash: String) { try? FileManager.default.removeItem(at: folder(hash)) }
}
