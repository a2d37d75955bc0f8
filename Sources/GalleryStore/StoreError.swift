import GRDB

/// Why the store refused a request. Nothing was written when one of these is thrown.
public enum StoreError: Error, Equatable, Sendable {
    case galleryNotFound(Int64)
    case itemNotFound(Int64)
    case sectionNotFound(Int64)
    /// A request that names real things but cannot be carried out (impossible index, duplicate ids…).
    case invalid(String)
    /// The client's baseVersion is not the gallery's version.
    case stale(baseVersion: Int64, currentVersion: Int64)
    /// A batch naming more items than it may (`GalleryStore.apply`'s `maxItems`), counting the
    /// live items of each section it deletes (they go to the trash): a 413 with `maxItems`.
    case tooManyItems(limit: Int, named: Int)
    case corrupt(String)
    /// The database cannot be reached (PostgreSQL down, a wrong URL): a 503, try again later.
    case unavailable(String)
    /// The database refused a statement (a constraint, a server-side error).
    case database(String)
    /// The database's disk is full (PostgreSQL's disk_full; SQLite's is its own `DatabaseError`,
    /// see `isStorageFull`).
    case storageFull(String)

    public var message: String {
        switch self {
        case let .galleryNotFound(id): return "unknown gallery \(id)"
        case let .itemNotFound(id): return "unknown item \(id)"
        case let .sectionNotFound(id): return "unknown section \(id)"
        case let .invalid(text): return text
        case let .stale(base, current): return "baseVersion \(base) is stale: the gallery is at version \(current)"
        case let .tooManyItems(limit, named):
            return "a batch may name at most \(limit) items; this one names \(named) (a deleted section names the items it puts in the trash): send it in parts"
        case let .corrupt(text): return "store inconsistency: \(text)"
        case let .unavailable(text): return "database unavailable: \(text)"
        case let .database(text): return "database error: \(text)"
        case let .storageFull(text): return "the database's disk is full: \(text)"
        }
    }
}

extension StoreError: CustomStringConvertible {
    /// The message (a command line that fails on a wrong database URL says why, plainly).
    public var description: String { message }
}

extension StoreError {
    /// Whether a write failed because the database's disk is full: SQLite's `SQLITE_FULL` (a write
    /// that met `ENOSPC`), PostgreSQL's `53100` (disk_full). The transaction it ended was rolled
    /// back: nothing of it was stored, and the same request works once there is room (the server
    /// answers 507, not 500).
    public static func isStorageFull(_ error: any Error) -> Bool {
        if let e = error as? DatabaseError { return e.resultCode == .SQLITE_FULL }
        if case .storageFull = error as? StoreError { return true }
        return false
    }
}
