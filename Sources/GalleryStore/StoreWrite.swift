import GalleryCore

/// How ingestion of a pending item ended.
public enum IngestOutcome: Sendable, Equatable {
    case ready(hash: String, width: Int, height: Int)
    case failed(reason: String)
}

/// Everything a write batch can contain: the clients' operations and the server's own.
public enum StoreWrite: Sendable {
    case client(BatchEdit)
    /// New items, in order, at a destination (a placeholder at the drop position, F19).
    case insert([NewItem], at: Destination)
    /// A pending item becomes ready or failed; its content version is bumped (a reload). Its
    /// ingestion lease is cleared; `lease` says who may settle it (a lost lease settles nothing).
    case finish(item: Int64, IngestOutcome, lease: LeaseCondition = .none)
    /// A ready item's displayed size was read again (after an upgrade that reads EXIF
    /// orientation): new width, height and aspect, and a new content version when they change.
    case resize(item: Int64, width: Int, height: Int)
    /// Every pending item of the gallery waiting for this URL (the dropped one and its copies) settles at once.
    case finishURL(String, IngestOutcome, lease: LeaseCondition = .none)
    /// The gallery's new name (checked by the caller): a version of its own with no stages, so
    /// the live stream and catch-up carry it to every window (`ChangesJSON.name`).
    case renameGallery(String)
}
