import GalleryCore

extension GalleryStore {
    /// Throws what `apply` would throw for inserting at `destination` now (unknown gallery, section
    /// or anchor item; index out of range), without writing anything. For requests that would
    /// otherwise receive and store a whole upload before finding out.
    public func check(_ destination: Destination, gallery: Int64) async throws {
        try await database.writeWithoutTransaction { db in
            let snapshot = try self._loadLive(db, gallery)
            let ctx = BatchContext(db: db, gallery: gallery, work: snapshot, now: Self.now())
            _ = try ctx.resolve(destination, removing: [])
        }
    }
}
