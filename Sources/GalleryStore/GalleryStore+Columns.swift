import GridEngine
import GalleryCore

extension GalleryStore {
    /// The gallery's columns now, made from `old` — its columns at an older version — and what
    /// changed since, without reading the whole gallery again (issue 15: a page load during a
    /// steady stream of edits read every row from SQLite; ~0.2 s at 100k items, seconds at 1M).
    ///
    /// The order is the live snapshot's; the items inserted, restored or changed since `old`'s
    /// version (the catch-up window's `arriving` ids) are read from their rows, O(changes); every
    /// other item is copied from `old`, after checking that its content version is the one the
    /// live snapshot has. nil when `old`'s version is outside the catch-up window or anything
    /// does not add up: the caller reads the whole gallery then.
    public func columns(_ id: Int64, updating old: SnapshotColumns) async throws -> SnapshotColumns? {
        let since = old.gallery.version
        guard try await checkHistory(gallery: id, from: since) else { return nil }
        struct Now {
            var info: GalleryInfo
            var sections: [(id: Int64, title: String, items: [ItemID], versions: [UInt32])] = []
            var fresh: [Int64: FreshItem] = [:]
        }
        // On the writer's queue: the version, the order and the rows read agree. Only the
        // sections' id arrays are kept (shared, copy-on-write), never the live snapshot itself.
        let now: Now? = try await database.writeWithoutTransaction { db in
            let (version, snapshot) = try self.current(db, id)
            guard let (_, arriving) = self.live.withLock({ $0[id]?.stages(since: since) }) else { return nil }
            guard let row = try db.fetchOne("SELECT id, name, version, createdAt FROM gallery WHERE id = ? AND deleting = 0", [id]) else {
                throw StoreError.galleryNotFound(id)
            }
            var info = Self.galleryInfo(row)
            guard info.version == version else { return nil }
            info.itemCount = snapshot.itemCount
            var out = Now(info: info)
            let titles = Dictionary(uniqueKeysWithValues: try db.fetchAll(
                "SELECT id, title FROM section WHERE galleryId = ? AND deleted = 0", [id])
                .map { ($0["id"] as Int64, $0["title"] as String) })
            for s in 0..<snapshot.sectionCount {
                let sid = Int64(snapshot.sectionID(at: s).rawValue)
                guard let title = titles[sid] else { return nil }
                out.sections.append((sid, title, snapshot.items(inSection: s), snapshot.versions(inSection: s)))
            }
            let ids = arriving.sorted()
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start ..< min(start + 500, ids.count)]
                for r in try db.fetchAll("""
                    SELECT id, title, sourceURL, width, height, aspect, state, reason, contentVersion
                    FROM item WHERE galleryId = ? AND trashed = 0 AND id IN (\(chunk.map(String.init).joined(separator: ",")))
                    """, [id], cached: false) {
                    let state = ItemState(rawValue: r["state"]) ?? .failed
                    out.fresh[r["id"]] = FreshItem(title: (r["title"] as String?) ?? "", sourceURL: r["sourceURL"],
                                                   width: Int32(clamping: r["width"] as Int64? ?? 0),
                                                   height: Int32(clamping: r["height"] as Int64? ?? 0),
                                                   aspect: state == .ready ? (r["aspect"] as Double? ?? 0) : 1,
                                                   state: state, reason: r["reason"],
                                                   contentVersion: UInt32(truncatingIfNeeded: r["contentVersion"] as Int64))
                }
            }
            return out
        }
        guard let now else { return nil }

        let index = IDPositions(old.ids)
        var out = SnapshotColumns(gallery: now.info)
        let n = now.info.itemCount
        out.ids.reserveCapacity(n); out.contentVersions.reserveCapacity(n); out.aspects.reserveCapacity(n)
        out.states.reserveCapacity(n); out.titles.reserveCapacity(n); out.widths.reserveCapacity(n); out.heights.reserveCapacity(n)
        for s in now.sections {
            for (item, version) in zip(s.items, s.versions) {
                let itemId = Int64(item.rawValue)
                if let f = now.fresh[itemId] {
                    guard f.contentVersion == version else { return nil }
                    out.ids.append(itemId); out.contentVersions.append(f.contentVersion); out.aspects.append(f.aspect)
                    out.states.append(f.state); out.titles.append(f.title); out.widths.append(f.width); out.heights.append(f.height)
                    if let r = f.reason { out.reasons[itemId] = r }
                    if let u = f.sourceURL { out.sourceURLs[itemId] = u }
                } else {
                    // Unchanged since `old`: the same content version, or something was missed.
                    guard let i = index[itemId], old.contentVersions[i] == version else { return nil }
                    out.ids.append(itemId); out.contentVersions.append(version); out.aspects.append(old.aspects[i])
                    out.states.append(old.states[i]); out.titles.append(old.titles[i]); out.widths.append(old.widths[i]); out.heights.append(old.heights[i])
                    if let r = old.reasons[itemId] { out.reasons[itemId] = r }
                    if let u = old.sourceURLs[itemId] { out.sourceURLs[itemId] = u }
                }
            }
            out.sections.append(.init(id: s.id, title: s.title, count: s.items.count))
        }
        return out
    }
}

/// An item's fields as the columns hold them, read from its row.
struct FreshItem {
    var title: String
    var sourceURL: String?
    var width: Int32
    var height: Int32
    var aspect: Double
    var state: ItemState
    var reason: String?
    var contentVersion: UInt32
}

/// Where each id is in a column of ids: a table indexed by id when the ids are dense (they are
/// assigned in order: filling it for 1M items takes milliseconds, a dictionary ~100 ms), else a
/// dictionary.
struct IDPositions {
    let low: Int64, high: Int64
    let dense: Bool
    var table: [Int32] = []
    var map: [Int64: Int] = [:]

    init(_ ids: [Int64]) {
        low = ids.min() ?? 0
        high = ids.max() ?? -1
        dense = high - low < Int64(4 * ids.count + 1024)
        if dense {
            table = [Int32](repeating: -1, count: Int(high - low + 1))
            for (i, id) in ids.enumerated() { table[Int(id - low)] = Int32(i) }
        } else {
            map.reserveCapacity(ids.count)
            for (i, id) in ids.enumerated() { map[id] = i }
        }
    }

    subscript(id: Int64) -> Int? {
        if dense {
            guard id >= low && id <= high else { return nil }
            let i = table[Int(id - low)]
            return i < 0 ? nil : Int(i)
        }
        return map[id]
    }
}
