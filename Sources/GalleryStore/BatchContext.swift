import GridEngine
import GalleryCore

/// Applies operations inside one write transaction, keeping an engine snapshot of the live
/// items in step with the rows, so that positions (indices, anchors) resolve without scanning
/// the gallery and the staged diff of the batch comes from the engine.
struct BatchContext {
    let db: any SQLConnection
    let gallery: Int64
    var work: Snapshot
    var touched: Set<Int64> = []
    var createdItems: [Int64] = []
    var createdSections: [Int64] = []
    var purgedHashes: Set<String> = []
    let now: Double
    /// The hot paths — a batch of one single-item move (a drag's commit), one insert (an upload's
    /// file, an added URL) or one ingestion outcome (a photo becoming ready): the rows are written
    /// but `work` is left as it was and the change is recorded here, to be made on the live
    /// snapshot in place after the commit, with its stage built directly (see `GalleryStore.run`).
    var defersInPlace = false
    var deferred: InPlaceChange?
    /// Set when the batch is one operation (`GalleryStore.run`): a move, a copy, a trash or a restore of
    /// several items (a restore also of one) then records its stage as it goes (`stage`), so the batch needs no diff of
    /// the whole gallery — at 100k items the diff was half of a 1,000-item move's time, and the
    /// writer is what every other write to the gallery waits for (issue 15's limits).
    var soleOperation = false
    var stage: BatchUpdate?
    /// The ids the recorded `stage` deletes and moves, in its order (`StageJSON.deletedIDs`,
    /// `movedIDs`), taken before the change: a batch made on the live snapshot in place
    /// (`GalleryStore.run`) has no copy of the snapshot before it to read them from.
    var stageDeletedIDs: [UInt64] = []
    var stageMovedIDs: [UInt64] = []
    /// Set just before the first change to `work` of a move, copy, trash or restore: every check
    /// that can refuse the operation ran before it. While false, `work` is as it came in.
    var changedWork = false
    /// `db.totalChanges` when the batch began (its rows written are counted from it).
    var startChanges = 0
    /// With a batch limit (`GalleryStore.apply`'s `maxItems`): the limit, and how many items the
    /// sections this batch deletes may still put in the trash (the limit less the items its
    /// operations name and the sections deleted before). A section delete's rows are what it
    /// holds the writer for (PostgreSQL: ~7 µs a row, 10,000 rows ~70 ms), as a trash's are.
    var sectionItemsAllowed: (limit: Int, left: Int)?

    init(db: any SQLConnection, gallery: Int64, work: Snapshot, now: Double) {
        self.db = db; self.gallery = gallery; self.work = work; self.now = now
    }

    mutating func apply(_ op: StoreWrite) throws {
        switch op {
        case let .client(o): try apply(o)
        case let .insert(items, dest): try insert(items, at: dest)
        case let .finish(id, outcome, lease): try finish(id, outcome, lease)
        case let .finishURL(url, outcome, lease):
            let (held, args) = lease.sql(db.dialect)
            let ids = try db.values("""
                SELECT id FROM item WHERE galleryId = ? AND sourceURL = ? AND state = 'pending' AND fileHash IS NULL\(held) ORDER BY id
                """, [gallery, url] + args, as: Int64.self)
            for id in ids { try finish(id, outcome, lease) }
        case let .renameGallery(name):
            try db.execute("UPDATE gallery SET name = ? WHERE id = ?", [name, gallery])
        case let .resize(id, width, height):
            guard width > 0 && height > 0 else { throw StoreError.invalid("size \(width)×\(height) is empty") }
            let changed = try db.execute("""
                UPDATE item SET width = ?, height = ?, aspect = ?, contentVersion = contentVersion + 1
                WHERE id = ? AND galleryId = ? AND state = 'ready' AND (width IS DISTINCT FROM ? OR height IS DISTINCT FROM ?)
                """, [width, height, Double(width) / Double(height), id, gallery, width, height])
            if changed == 1 { try bumpVersion(id) }
        }
    }

    mutating func apply(_ op: BatchEdit) throws {
        switch op {
        case let .move(ids, dest): try move(ids, to: dest)
        case let .copy(ids, dest): try copy(ids, to: dest)
        case let .swap(a, b): try swap(a, b)
        case let .trash(ids): try trash(ids)
        case let .restore(ids): try restore(ids)
        case let .purge(ids): try purge(ids)
        case let .renameItem(id, title): try renameItem(id, title)
        case let .createSection(title, index): try createSection(title, index)
        case let .renameSection(id, title): try renameSection(id, title)
        case let .moveSection(id, index): try moveSection(id, index)
        case let .deleteSection(id): try deleteSection(id)
        }
    }

    // MARK: Checks

    /// The ids must be distinct, live items of this gallery.
    func checkLive(_ ids: [Int64], _ what: String) throws {
        guard !ids.isEmpty else { throw StoreError.invalid("\(what): \"items\" must not be empty") }
        guard Set(ids).count == ids.count else { throw StoreError.invalid("\(what): an item id is repeated") }
        for id in ids where !work.contains(ItemID(UInt64(bitPattern: id))) {
            if let trashed = try db.value("SELECT trashed FROM item WHERE id = ? AND galleryId = ?", [id, gallery], as: Bool.self), trashed {
                throw StoreError.invalid("\(what): item \(id) is in the trash")
            }
            throw StoreError.itemNotFound(id)
        }
    }

    func checkTitle(_ title: String) throws -> String { try Self.checkTitle(title) }

    /// A title as every write takes it (batches and imports alike): at most 500 characters, and
    /// no U+0000 (SQLite's text binding would cut the title there without a word).
    static func checkTitle(_ title: String) throws -> String {
        guard title.count <= 500 else { throw StoreError.invalid("title is longer than 500 characters") }
        guard !title.utf8.contains(0) else { throw StoreError.invalid("title must not contain U+0000") }
        return title
    }

    func sectionIndex(_ id: Int64) throws -> Int {
        guard let i = work.indexOfSection(SectionID(UInt64(bitPattern: id))) else { throw StoreError.sectionNotFound(id) }
        return i
    }

    func itemRank(_ id: ItemID) throws -> String {
        guard let r = try db.value("SELECT rank FROM item WHERE id = ?", [Int64(id.rawValue)], as: String.self) else {
            throw StoreError.corrupt("item \(id.rawValue) has no row")
        }
        return r
    }

    func sectionRank(_ id: SectionID) throws -> String {
        guard let r = try db.value("SELECT rank FROM section WHERE id = ?", [Int64(id.rawValue)], as: String.self) else {
            throw StoreError.corrupt("section \(id.rawValue) has no row")
        }
        return r
    }

    static func keys(_ count: Int, _ lower: String?, _ upper: String?) throws -> [String] {
        if let lower, let upper, lower >= upper { throw StoreError.corrupt("rank keys out of order (\(lower) ≥ \(upper))") }
        return RankKey.keys(count, between: lower, and: upper)
    }

    // MARK: Positions

    /// Section index and item index of a destination, counted after `removed` left their places.
    func resolve(_ dest: Destination, removing removed: [Int64]) throws -> (section: Int, index: Int) {
        func removedBefore(_ section: Int, _ item: Int) -> Int {
            removed.reduce(0) { n, id in
                guard let p = work.indexPath(of: ItemID(UInt64(bitPattern: id))), p.section == section, p.item < item else { return n }
                return n + 1
            }
        }
        func countAfter(_ section: Int) -> Int { work.itemCount(inSection: section) - removedBefore(section, Int.max) }
        switch dest {
        case let .index(section, index):
            let s = try sectionIndex(section)
            let limit = countAfter(s)
            guard index >= 0 && index <= limit else {
                throw StoreError.invalid("index \(index) is out of range 0...\(limit) for section \(section)")
            }
            return (s, index)
        case let .end(section):
            let s = try sectionIndex(section)
            return (s, countAfter(s))
        case let .before(anchor), let .after(anchor):
            guard !removed.contains(anchor) else { throw StoreError.invalid("anchor item \(anchor) is one of the items being placed") }
            guard let p = work.indexPath(of: ItemID(UInt64(bitPattern: anchor))) else {
                throw StoreError.itemNotFound(anchor)
            }
            let base = p.item - removedBefore(p.section, p.item)
            if case .after = dest { return (p.section, base + 1) }
            return (p.section, base)
        }
    }

    /// Rank keys for `count` items placed at `index` of `section` once `removed` are gone.
    func ranks(_ count: Int, section: Int, index: Int, removing removed: [Int64]) throws -> [String] {
        let items = work.items(inSection: section)
        // Current positions of the removed items in this section, ascending (k of them).
        let gone = removed.compactMap { work.indexPath(of: ItemID(UInt64(bitPattern: $0))) }.filter { $0.section == section }.map(\.item).sorted()
        // Position in the current list of the j-th item that stays: O(k).
        func current(_ j: Int) -> Int {
            var p = j
            for g in gone { if g <= p { p += 1 } else { break } }
            return p
        }
        let remaining = items.count - gone.count
        let lower = index > 0 ? items[current(index - 1)] : nil
        let upper = index < remaining ? items[current(index)] : nil
        let (below, above) = try neighbourRanks(lower, upper)
        return try Self.keys(count, below, above)
    }

    /// The ranks of the items either side of a place; both in one statement when both are there
    /// (a move's two reads were ~3 % of the server's CPU under 50 clients moving, issue 15.3).
    /// Two seeks joined by UNION ALL: `id IN (?, ?)` builds a temporary table for its list on
    /// every run (its B-tree and pager opened and closed: it cost more than the two reads).
    func neighbourRanks(_ lower: ItemID?, _ upper: ItemID?) throws -> (String?, String?) {
        guard let lower, let upper else { return (try lower.map(itemRank), try upper.map(itemRank)) }
        let (l, u) = (Int64(lower.rawValue), Int64(upper.rawValue))
        var below: String?, above: String?
        for row in try db.fetchAll("SELECT id, rank FROM item WHERE id = ? UNION ALL SELECT id, rank FROM item WHERE id = ?", [l, u]) {
            let id: Int64 = row["id"]
            if id == l { below = row["rank"] }
            if id == u { above = row["rank"] }
        }
        guard let below, let above else {
            throw StoreError.corrupt("item \(below == nil ? l : u) has no row")
        }
        return (below, above)
    }

    // MARK: Items

    /// From this many items on, a move, copy, trash, restore or purge writes its rows in one
    /// statement (or a few) instead of one each.
    static let manyRows = 16

    mutating func move(_ ids: [Int64], to dest: Destination) throws {
        try checkLive(ids, "move")
        let (s, index) = try resolve(dest, removing: ids)
        let keys = try ranks(ids.count, section: s, index: index, removing: ids)
        let sectionId = Int64(work.sectionID(at: s).rawValue)
        if ids.count < Self.manyRows {
            for (id, key) in zip(ids, keys) {
                try db.execute("UPDATE item SET sectionId = ?, rank = ? WHERE id = ?", [sectionId, key, id])
            }
        } else {
            let changed = try db.execute("UPDATE item SET sectionId = ?, rank = u.rank FROM \(db.dialect.idRankPairs) AS u WHERE item.id = u.id",
                                         [sectionId, Self.pairsJSON(ids, keys)])
            guard changed == ids.count else { throw StoreError.corrupt("a move wrote \(changed) of \(ids.count) items") }
        }
        let engineIds = ids.map { ItemID(UInt64(bitPattern: $0)) }
        if ids.count == 1 && defersInPlace {
            deferred = .move(engineIds[0], to: IndexPath(item: index, section: s))
        } else if ids.count == 1 {
            changedWork = true
            try work.moveItem(engineIds[0], to: IndexPath(item: index, section: s))
        } else {
            if soleOperation {
                // Each item from its place to its slot in the block; every other item keeps its order.
                var b = BatchUpdate()
                b.itemMoves = engineIds.enumerated().map { k, id in
                    ItemMove(from: work.indexPath(of: id)!, to: IndexPath(item: index + k, section: s))
                }
                stage = b
                stageMovedIDs = engineIds.map(\.rawValue)
            }
            let versions = engineIds.map { work.version(of: $0)! }
            changedWork = true
            try work.deleteItems(engineIds)
            try work.insertItems(engineIds, at: IndexPath(item: index, section: s))
            for (id, v) in zip(engineIds, versions) { try work.setVersion(v, of: id) }
        }
    }

    mutating func copy(_ ids: [Int64], to dest: Destination) throws {
        try checkLive(ids, "copy")
        let (s, index) = try resolve(dest, removing: [])
        let keys = try ranks(ids.count, section: s, index: index, removing: [])
        let sectionId = Int64(work.sectionID(at: s).rawValue)
        var newIds: [ItemID] = []
        if ids.count < Self.manyRows {
            for (id, key) in zip(ids, keys) {
                let newId = try ItemRows.copyOne(db, gallery: "galleryId", section: "?", rank: "?", where: "id = ?", arguments: [sectionId, key, now, id])
                newIds.append(ItemID(UInt64(newId)))
                createdItems.append(newId)
                touched.insert(newId)
            }
        } else {
            // One statement; each copy is told by its rank (the keys are distinct), so the new ids
            // come back in the batch's order whatever order the database returns them in. The `+`
            // keeps SQLite off the gallery's index (with it, SQLite read the list once per item of
            // the gallery: O(n²)); the list drives, each item found by its id.
            let sql = ItemRows.copySQL(gallery: "item.galleryId", section: "?", rank: "u.rank",
                                       from: "\(db.dialect.idRankPairs) AS u JOIN item ON item.id = u.id", where: "+item.galleryId = ?")
            let rows = try db.fetchAll(sql + " RETURNING id, rank", [sectionId, now, Self.pairsJSON(ids, keys), gallery], cached: true)
            var byRank: [String: Int64] = [:]
            for r in rows { byRank[r["rank"] as String] = r["id"] as Int64 }
            for key in keys {
                guard let newId = byRank[key] else { throw StoreError.corrupt("a copy made \(rows.count) of \(ids.count) items") }
                newIds.append(ItemID(UInt64(newId)))
                createdItems.append(newId)
                touched.insert(newId)
            }
        }
        changedWork = true
        try work.insertItems(newIds, at: IndexPath(item: index, section: s))
        if soleOperation {
            var b = BatchUpdate()
            b.itemInserts = newIds.enumerated().map { k, id in ItemInsertion(at: IndexPath(item: index + k, section: s), id: id, version: 0) }
            stage = b
        }
    }

    mutating func insert(_ items: [NewItem], at dest: Destination) throws {
        guard !items.isEmpty else { return }
        let (s, index) = try resolve(dest, removing: [])
        let keys = try ranks(items.count, section: s, index: index, removing: [])
        let sectionId = Int64(work.sectionID(at: s).rawValue)
        var newIds: [ItemID] = []
        let rows = try zip(items, keys).map { item, key in (rank: key, title: try checkTitle(item.title), item: item) }
        for newId in try ItemRows.insert(db, gallery: gallery, section: sectionId, rows: rows, at: now) {
            newIds.append(ItemID(UInt64(newId)))
            createdItems.append(newId)
            touched.insert(newId)
        }
        if defersInPlace { deferred = .insert(newIds, at: IndexPath(item: index, section: s)) }
        else { try work.insertItems(newIds, at: IndexPath(item: index, section: s)) }
    }

    mutating func swap(_ a: Int64, _ b: Int64) throws {
        try checkLive([a, b], "swap")
        let rows = try db.fetchAll("SELECT id, sectionId, rank FROM item WHERE id IN (?, ?)", [a, b])
        guard rows.count == 2 else { throw StoreError.corrupt("swap rows missing") }
        let (ra, rb) = (rows[0]["id"] as Int64) == a ? (rows[0], rows[1]) : (rows[1], rows[0])
        try db.execute("UPDATE item SET sectionId = ?, rank = ? WHERE id = ?", [rb["sectionId"] as Int64, rb["rank"] as String, a])
        try db.execute("UPDATE item SET sectionId = ?, rank = ? WHERE id = ?", [ra["sectionId"] as Int64, ra["rank"] as String, b])
        var (first, second) = (ItemID(UInt64(bitPattern: a)), ItemID(UInt64(bitPattern: b)))
        var (pf, ps) = (work.indexPath(of: first)!, work.indexPath(of: second)!)
        if ps < pf { Swift.swap(&first, &second); Swift.swap(&pf, &ps) }
        try work.moveItem(first, to: ps)
        try work.moveItem(second, to: pf)
    }

    mutating func trash(_ ids: [Int64]) throws {
        try checkLive(ids, "trash")
        if ids.count < Self.manyRows {
            for id in ids {
                try db.execute("UPDATE item SET trashed = 1, trashedAt = ? WHERE id = ?", [now, id])
            }
        } else {
            let changed = try db.execute("UPDATE item SET trashed = 1, trashedAt = ? WHERE id IN \(db.dialect.ids)", [now, Self.idList(ids)])
            guard changed == ids.count else { throw StoreError.corrupt("a trash wrote \(changed) of \(ids.count) items") }
        }
        let engineIds = ids.map { ItemID(UInt64(bitPattern: $0)) }
        if soleOperation {
            var b = BatchUpdate()
            b.itemDeletes = engineIds.map { work.indexPath(of: $0)! }
            stage = b
            stageDeletedIDs = engineIds.map(\.rawValue)
        }
        changedWork = true
        try work.deleteItems(engineIds)
    }

    /// Puts trashed items back at their rank in their section (reviving a deleted section).
    /// A key that a live item of the section holds now (given out while the item was away)
    /// is replaced by a fresh one just after it: the live item keeps its place.
    mutating func restore(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { throw StoreError.invalid("restore: \"items\" must not be empty") }
        guard Set(ids).count == ids.count else { throw StoreError.invalid("restore: an item id is repeated") }
        if ids.count >= Self.manyRows && !GalleryStore.restoresBySeek { try restoreManyReadingSections(ids); return }
        var revived: Set<Int64> = []
        if ids.count >= Self.manyRows {
            try restoreMany(ids, revived: &revived)
        } else {
            // Every item checked before the first is put back: a refused restore leaves `work` as it was.
            if ids.count > 1 { try checkTrashed(ids) }
            for id in ids { try restoreOne(id, revived: &revived) }
        }
        if soleOperation { stage = restoredStage(ids, revived: revived) }
    }

    /// The ids must be trashed items of this gallery (`restore`'s refusals, in the order
    /// `restoreOne` would meet them), checked in one statement.
    func checkTrashed(_ ids: [Int64]) throws {
        let rows = try db.fetchAll("SELECT id, galleryId, trashed FROM item WHERE id IN \(db.dialect.ids)", [Self.idList(ids)])
        var byId: [Int64: SQLRow] = [:]
        for r in rows { byId[r["id"]] = r }
        for id in ids {
            guard let r = byId[id], (r["galleryId"] as Int64) == gallery else { throw StoreError.itemNotFound(id) }
            guard r["trashed"] as Bool else { throw StoreError.invalid("restore: item \(id) is not in the trash") }
        }
    }

    /// The trashed items `i` that `condition` picks, each with what its place back needs, by
    /// index seeks on `item_by_section` (sectionId, trashed, rank): `tie` (1 when a live item of
    /// its section holds its rank) and the first live item after its rank in the section's
    /// order (`nextId`, `nextRank`; NULL at the section's end). SQLite reads (rank, id) in index
    /// order (the rowid ends every index entry); PostgreSQL seeks by rank and sorts only that
    /// rank's rows by id (an incremental sort under the LIMIT). O(log n) each, whatever the
    /// section's size; no new index.
    ///
    /// `bounded` (the ids of `restoreMany`, whose condition is `i.id IN ids`; the ids are bound
    /// twice): each seek stops at the highest rank of the restored items of its section, and an
    /// item with no live one up to there gets NULL (`restoreMany` seeks past that rank once a
    /// section). Each seek walks past the index entries with `trashed = 0` that a section's
    /// trashing left behind (dead row versions until a vacuum): unbounded, the first part of a
    /// 10,000-item section restored in parts walked ~10,000 of them for each of its items, 15–28 ms
    /// a part of 500 on PostgreSQL (BENCHMARKS.md, session 19).
    static func restoreSeekSQL(_ condition: String, bounded ids: String? = nil) -> String {
        let bound = ids == nil ? "" : " AND a.rank <= b.maxRank"
        let join = ids.map { " JOIN (SELECT sectionId, MAX(rank) AS maxRank FROM item WHERE id IN \($0) GROUP BY sectionId) AS b ON b.sectionId = i.sectionId" } ?? ""
        return """
        SELECT r.id, r.galleryId, r.sectionId, r.rank, r.trashed, r.contentVersion, r.tie, n.id AS nextId, n.rank AS nextRank FROM (
            SELECT i.id, i.galleryId, i.sectionId, i.rank, i.trashed, i.contentVersion,
                CASE WHEN EXISTS (SELECT 1 FROM item t WHERE t.sectionId = i.sectionId AND t.trashed = 0 AND t.rank = i.rank) THEN 1 ELSE 0 END AS tie,
                (SELECT a.id FROM item a WHERE a.sectionId = i.sectionId AND a.trashed = 0 AND a.rank > i.rank\(bound) ORDER BY a.rank, a.id LIMIT 1) AS nextId
            FROM item i\(join) WHERE \(condition)
        ) AS r LEFT JOIN item n ON n.id = r.nextId
        """
    }

    /// Where a restored item goes in section `s` of `work`: just before the live item after its
    /// rank (`next`, found by `restoreSeekSQL`), or at the section's end. The rows and the live
    /// order agree (a batch keeps them so), so the item's place among the live ones is the
    /// neighbour's index: O(1), not a count over the section.
    func position(before next: Int64?, inSection s: Int) throws -> Int {
        guard let next else { return work.itemCount(inSection: s) }
        guard let p = work.indexPath(of: ItemID(UInt64(bitPattern: next))), p.section == s else {
            throw StoreError.corrupt("section \(Int64(bitPattern: work.sectionID(at: s).rawValue)): its rows and the live order disagree (item \(next))")
        }
        return p.item
    }

    /// One item back: its row and its neighbour in one statement, its place from the neighbour.
    mutating func restoreOne(_ id: Int64, revived: inout Set<Int64>) throws {
        guard let row = try db.fetchOne(Self.restoreSeekSQL("i.id = ? AND i.galleryId = ?"), [id, gallery]) else {
            throw StoreError.itemNotFound(id)
        }
        guard row["trashed"] as Bool else { throw StoreError.invalid("restore: item \(id) is not in the trash") }
        let sectionId: Int64 = row["sectionId"]
        changedWork = true
        if try reviveSection(sectionId) { revived.insert(sectionId) }
        var rank: String = row["rank"]
        // A key equal to a live neighbour's gets a fresh one between it and the next live key.
        if row["tie"] as Bool { rank = try Self.keys(1, rank, row["nextRank"] as String?)[0] }
        let s = try sectionIndex(sectionId)
        let at = try position(before: row["nextId"] as Int64?, inSection: s)
        try db.execute("UPDATE item SET trashed = 0, trashedAt = NULL, rank = ? WHERE id = ?", [rank, id])
        let engineId = ItemID(UInt64(bitPattern: id))
        try work.insertItems([engineId], at: IndexPath(item: at, section: s))
        try work.setVersion(UInt32(truncatingIfNeeded: row["contentVersion"] as Int64), of: engineId)
        touched.insert(id)
    }

    /// The stage of a restore when it is the batch's one operation: its items inserted where
    /// they are now, a revived section inserted with its items. O(k log k).
    func restoredStage(_ ids: [Int64], revived: Set<Int64>) -> BatchUpdate {
        var b = BatchUpdate()
        for section in revived {
            let s = work.indexOfSection(SectionID(UInt64(bitPattern: section)))!
            b.sectionInserts.append(SectionInsertion(index: s, id: work.sectionID(at: s), items: work.items(inSection: s), versions: work.versions(inSection: s)))
        }
        b.sectionInserts.sort { $0.index < $1.index }
        for id in ids {
            let engineId = ItemID(UInt64(bitPattern: id))
            let p = work.indexPath(of: engineId)!
            if revived.contains(Int64(bitPattern: work.sectionID(at: p.section).rawValue)) { continue }
            b.itemInserts.append(ItemInsertion(at: p, id: engineId, version: work.version(at: p)))
        }
        b.itemInserts.sort { $0.at < $1.at }
        return b
    }

    /// A restored item's section, back at its place if it was deleted (then true).
    @discardableResult
    mutating func reviveSection(_ id: Int64) throws -> Bool {
        guard let section = try db.fetchOne("SELECT * FROM section WHERE id = ?", [id]).map(SectionRecord.init) else {
            throw StoreError.corrupt("section \(id) missing")
        }
        guard section.deleted else { return false }
        let position = try db.value("""
            SELECT COUNT(*) FROM section WHERE galleryId = ? AND deleted = 0 AND (rank < ? OR (rank = ? AND id < ?))
            """, [gallery, section.rank, section.rank, id], as: Int.self)!
        try db.execute("UPDATE section SET deleted = 0 WHERE id = ?", [id])
        try work.insertSection(SectionID(UInt64(bitPattern: id)), at: position)
        return true
    }

    /// `restore` for many items in a few statements: one reads every item with its neighbour
    /// (`restoreSeekSQL`: index seeks, O(k log n)), one writes them all. In each section the
    /// restored items are taken in rank order, those of one rank together; a live item that
    /// holds that rank keeps its place and all of them get fresh keys just after it, else the
    /// first (by id) keeps the rank and the others get fresh keys — all of a run at once
    /// (`RankKey.keys`, below the next live or restored rank), so keys stay short. Each run goes
    /// in just before its live neighbour, all of a section's runs in one pass of the engine.
    /// (Until session 15 each touched section's live rows were read and the section laid out
    /// again: O(section) per section, ~0.5–1 s for 1,000 items over a 1M gallery's 100 sections.)
    mutating func restoreMany(_ ids: [Int64], revived: inout Set<Int64>) throws {
        let list = Self.idList(ids)
        let rows = try db.fetchAll(Self.restoreSeekSQL("i.id IN \(db.dialect.ids)", bounded: db.dialect.ids), [list, list])
        var byId: [Int64: SQLRow] = [:]
        for r in rows { byId[r["id"]] = r }
        typealias Restored = (id: Int64, rank: String, version: UInt32, tie: Bool, next: Int64?, nextRank: String?)
        var bySection: [Int64: [Restored]] = [:], sectionOrder: [Int64] = []
        for id in ids {
            guard let r = byId[id], (r["galleryId"] as Int64) == gallery else { throw StoreError.itemNotFound(id) }
            guard r["trashed"] as Bool else { throw StoreError.invalid("restore: item \(id) is not in the trash") }
            let section: Int64 = r["sectionId"]
            if bySection[section] == nil { sectionOrder.append(section) }
            bySection[section, default: []].append((id, r["rank"], UInt32(truncatingIfNeeded: r["contentVersion"] as Int64),
                                                    r["tie"], r["nextId"], r["nextRank"]))
        }
        func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        // The seeks stopped at each section's highest restored rank: the items with no live one up
        // to there go before the first live item past it, sought once a section.
        for sectionId in sectionOrder where bySection[sectionId]!.contains(where: { $0.next == nil }) {
            let top = bySection[sectionId]!.map(\.rank).max(by: less)!
            let past = try db.fetchOne("SELECT id, rank FROM item WHERE sectionId = ? AND trashed = 0 AND rank > ? ORDER BY rank, id LIMIT 1",
                                       [sectionId, top])
            guard let past else { continue }
            bySection[sectionId] = bySection[sectionId]!.map { r in
                r.next == nil ? (r.id, r.rank, r.version, r.tie, past["id"] as Int64, past["rank"] as String) : r
            }
        }
        var written: [Int64] = [], ranks: [String] = []
        written.reserveCapacity(ids.count)
        ranks.reserveCapacity(ids.count)
        changedWork = true
        for sectionId in sectionOrder {
            if try reviveSection(sectionId) { revived.insert(sectionId) }
            let s = try sectionIndex(sectionId)
            let restored = bySection[sectionId]!.sorted { $0.rank == $1.rank ? $0.id < $1.id : less($0.rank, $1.rank) }
            var order: [ItemID] = [], versions: [UInt32] = [], positions: [Int] = []
            order.reserveCapacity(restored.count)
            versions.reserveCapacity(restored.count)
            positions.reserveCapacity(restored.count)
            var j = 0
            while j < restored.count {
                let first = restored[j]
                var end = j
                while end < restored.count && restored[end].rank == first.rank { end += 1 }
                let at = try position(before: first.next, inSection: s)
                guard at >= (positions.last ?? 0) else {
                    throw StoreError.corrupt("section \(sectionId): its rows and the live order disagree (item \(first.next ?? 0))")
                }
                // Fresh keys below both the next live rank and the next restored one.
                let after = [first.nextRank, end < restored.count ? restored[end].rank : nil].compactMap { $0 }.min(by: less)
                let fresh = first.tie ? end - j : end - j - 1
                let keys = fresh > 0 ? try Self.keys(fresh, first.rank, after) : []
                for k in j..<end {
                    let key = k < end - fresh ? first.rank : keys[k - (end - fresh)]
                    written.append(restored[k].id); ranks.append(key)
                    order.append(ItemID(UInt64(bitPattern: restored[k].id))); versions.append(restored[k].version); positions.append(at)
                    touched.insert(restored[k].id)
                }
                j = end
            }
            try work.insertItems(order, versions: versions, before: positions, inSection: s)
        }
        let changed = try db.execute("UPDATE item SET trashed = 0, trashedAt = NULL, rank = u.rank FROM \(db.dialect.idRankPairs) AS u WHERE item.id = u.id",
                                     [Self.pairsJSON(written, ranks)])
        guard changed == ids.count else { throw StoreError.corrupt("a restore wrote \(changed) of \(ids.count) items") }
    }

    /// The restore of many items before session 15, kept only as `gallery-bench limits --restore`'s
    /// baseline (`GalleryStore.restoresBySeek` false): each touched section's live rows read
    /// and the section laid out again, O(section) per section; its stage from a diff. Each
    /// section's live rows are read once, in order, and the restored items merged in by rank.
    mutating func restoreManyReadingSections(_ ids: [Int64]) throws {
        let rows = try db.fetchAll("SELECT id, galleryId, sectionId, rank, trashed, contentVersion FROM item WHERE id IN \(db.dialect.ids)",
                                   [Self.idList(ids)])
        var byId: [Int64: SQLRow] = [:]
        for r in rows { byId[r["id"]] = r }
        typealias Restored = (id: Int64, rank: String, version: UInt32)
        var bySection: [Int64: [Restored]] = [:], sectionOrder: [Int64] = []
        for id in ids {
            guard let r = byId[id], (r["galleryId"] as Int64) == gallery else { throw StoreError.itemNotFound(id) }
            guard r["trashed"] as Bool else { throw StoreError.invalid("restore: item \(id) is not in the trash") }
            let section: Int64 = r["sectionId"]
            if bySection[section] == nil { sectionOrder.append(section) }
            bySection[section, default: []].append((id, r["rank"], UInt32(truncatingIfNeeded: r["contentVersion"] as Int64)))
        }
        func less(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        var written: [Int64] = [], ranks: [String] = []
        written.reserveCapacity(ids.count)
        ranks.reserveCapacity(ids.count)
        changedWork = true
        for sectionId in sectionOrder {
            try reviveSection(sectionId)
            let s = try sectionIndex(sectionId)
            let live = try db.fetchAll("SELECT id, rank FROM item WHERE sectionId = ? AND trashed = 0 ORDER BY rank, id", [sectionId])
                .map { (id: $0["id"] as Int64, rank: $0["rank"] as String) }
            let liveIds = work.items(inSection: s), liveVersions = work.versions(inSection: s)
            guard live.count == liveIds.count, zip(live, liveIds).allSatisfy({ ItemID(UInt64(bitPattern: $0.id)) == $1 }) else {
                throw StoreError.corrupt("section \(sectionId): its rows and the live order disagree")
            }
            let restored = bySection[sectionId]!.sorted { $0.rank == $1.rank ? $0.id < $1.id : less($0.rank, $1.rank) }
            var order: [ItemID] = [], versions: [UInt32] = []
            order.reserveCapacity(live.count + restored.count)
            versions.reserveCapacity(live.count + restored.count)
            var i = 0, j = 0
            var previous: String?
            while j < restored.count {
                let rank = restored[j].rank
                var end = j
                while end < restored.count && restored[end].rank == rank { end += 1 }
                // Live items at or before this rank come first (a live item keeps its place on a tie).
                while i < live.count && !less(rank, live[i].rank) {
                    order.append(liveIds[i]); versions.append(liveVersions[i]); previous = live[i].rank; i += 1
                }
                let after = [i < live.count ? live[i].rank : nil, end < restored.count ? restored[end].rank : nil]
                    .compactMap { $0 }.min(by: less)
                let fresh = previous == rank ? end - j : end - j - 1
                let keys = fresh > 0 ? try Self.keys(fresh, rank, after) : []
                for k in j..<end {
                    let key = k < end - fresh ? rank : keys[k - (end - fresh)]
                    written.append(restored[k].id); ranks.append(key)
                    order.append(ItemID(UInt64(bitPattern: restored[k].id))); versions.append(restored[k].version)
                    touched.insert(restored[k].id)
                }
                previous = keys.last ?? rank
                j = end
            }
            while i < live.count { order.append(liveIds[i]); versions.append(liveVersions[i]); i += 1 }
            // The section laid out again in its new order, each item with its content version.
            try work.deleteItems(liveIds)
            try work.insertItems(order, at: IndexPath(item: 0, section: s))
            for (id, v) in zip(order, versions) where v != 0 { try work.setVersion(v, of: id) }
        }
        let changed = try db.execute("UPDATE item SET trashed = 0, trashedAt = NULL, rank = u.rank FROM \(db.dialect.idRankPairs) AS u WHERE item.id = u.id",
                                     [Self.pairsJSON(written, ranks)])
        guard changed == ids.count else { throw StoreError.corrupt("a restore wrote \(changed) of \(ids.count) items") }
    }

    /// A JSON array of `[id, "rank"]` pairs, the argument of `SQLDialect.idRankPairs`.
    static func pairsJSON(_ ids: [Int64], _ keys: [String]) -> String {
        var pairs = AnswerJSONWriter(capacity: ids.count * 24)
        pairs.raw("[")
        for (n, (id, key)) in zip(ids, keys).enumerated() {
            pairs.raw(n == 0 ? "[" : ",["); pairs.int(id); pairs.byte(UInt8(ascii: ",")); pairs.string(key); pairs.byte(UInt8(ascii: "]"))
        }
        pairs.raw("]")
        return String(decoding: pairs.bytes, as: UTF8.self)
    }

    /// A JSON array of ids, the argument of `SQLDialect.ids`.
    static func idList(_ ids: [Int64]) -> String {
        var w = AnswerJSONWriter(capacity: ids.count * 8)
        w.ints(ids)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    mutating func purge(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { throw StoreError.invalid("purge: \"items\" must not be empty") }
        if ids.count >= Self.manyRows {
            let list = Self.idList(ids)
            let rows = try db.fetchAll("SELECT id, galleryId, trashed, fileHash FROM item WHERE id IN \(db.dialect.ids)", [list])
            var byId: [Int64: SQLRow] = [:]
            for r in rows { byId[r["id"]] = r }
            for id in ids {
                // A repeated id is gone the second time, as one by one.
                guard let r = byId.removeValue(forKey: id), (r["galleryId"] as Int64) == gallery else { throw StoreError.itemNotFound(id) }
                guard r["trashed"] as Bool else { throw StoreError.invalid("purge: item \(id) is not in the trash") }
                if let hash = r["fileHash"] as String? { purgedHashes.insert(hash) }
            }
            try db.execute("DELETE FROM item WHERE id IN \(db.dialect.ids)", [list])
            return
        }
        for id in ids {
            guard let row = try db.fetchOne("SELECT trashed, fileHash FROM item WHERE id = ? AND galleryId = ?", [id, gallery]) else {
                throw StoreError.itemNotFound(id)
            }
            guard row["trashed"] as Bool else { throw StoreError.invalid("purge: item \(id) is not in the trash") }
            try db.execute("DELETE FROM item WHERE id = ?", [id])
            if let hash = row["fileHash"] as String? { purgedHashes.insert(hash) }
        }
    }

    mutating func renameItem(_ id: Int64, _ title: String) throws {
        let changed = try db.execute("UPDATE item SET title = ?, contentVersion = contentVersion + 1 WHERE id = ? AND galleryId = ?",
                                     [try checkTitle(title), id, gallery])
        guard changed == 1 else { throw StoreError.itemNotFound(id) }
        try bumpVersion(id)
    }

    mutating func bumpVersion(_ id: Int64) throws {
        let engineId = ItemID(UInt64(bitPattern: id))
        if work.contains(engineId) {
            let v = try db.value("SELECT contentVersion FROM item WHERE id = ?", [id], as: Int64.self)!
            if defersInPlace { deferred = .reload(engineId, version: UInt32(truncatingIfNeeded: v)) }
            else { try work.setVersion(UInt32(truncatingIfNeeded: v), of: engineId) }
            touched.insert(id)
        }
    }

    /// Settles a pending item once: the UPDATE is conditional on it still being pending and, with
    /// a lease condition, on the caller holding it (PostgreSQL re-checks both on the row it locks,
    /// so a finish racing another instance's claim or finish changes nothing).
    mutating func finish(_ id: Int64, _ outcome: IngestOutcome, _ lease: LeaseCondition = .none) throws {
        let changed: Int
        let (held, args) = lease.sql(db.dialect)
        switch outcome {
        case let .ready(hash, width, height):
            changed = try db.execute("""
                UPDATE item SET state = 'ready', reason = NULL, fileHash = ?, width = ?, height = ?, aspect = ?, contentVersion = contentVersion + 1,
                    leaseOwner = NULL, leaseUntil = NULL
                WHERE id = ? AND state = 'pending'\(held)
                """, [hash, width, height, Double(width) / Double(max(1, height)), id] + args)
        case let .failed(reason):
            changed = try db.execute("""
                UPDATE item SET state = 'failed', reason = ?, aspect = 1, contentVersion = contentVersion + 1, leaseOwner = NULL, leaseUntil = NULL
                WHERE id = ? AND state = 'pending'\(held)
                """, [reason, id] + args)
        }
        if changed == 1 { try bumpVersion(id) }
    }

    // MARK: Sections

    mutating func createSection(_ title: String, _ index: Int?) throws {
        let index = index ?? work.sectionCount
        guard index >= 0 && index <= work.sectionCount else {
            throw StoreError.invalid("section index \(index) is out of range 0...\(work.sectionCount)")
        }
        let lower = index > 0 ? try sectionRank(work.sectionID(at: index - 1)) : nil
        let upper = index < work.sectionCount ? try sectionRank(work.sectionID(at: index)) : nil
        let key = try Self.keys(1, lower, upper)[0]
        let id = try db.insert("INSERT INTO section (galleryId, title, rank, deleted) VALUES (?, ?, ?, 0) RETURNING id",
                               [gallery, try checkTitle(title), key])
        createdSections.append(id)
        try work.insertSection(SectionID(UInt64(bitPattern: id)), at: index)
    }

    mutating func renameSection(_ id: Int64, _ title: String) throws {
        _ = try sectionIndex(id)
        try db.execute("UPDATE section SET title = ? WHERE id = ?", [try checkTitle(title), id])
    }

    mutating func moveSection(_ id: Int64, _ index: Int) throws {
        let from = try sectionIndex(id)
        guard index >= 0 && index < work.sectionCount else {
            throw StoreError.invalid("section index \(index) is out of range 0..<\(work.sectionCount)")
        }
        try work.moveSection(from: from, to: index)
        let lower = index > 0 ? try sectionRank(work.sectionID(at: index - 1)) : nil
        let upper = index + 1 < work.sectionCount ? try sectionRank(work.sectionID(at: index + 1)) : nil
        if from != index {
            try db.execute("UPDATE section SET rank = ? WHERE id = ?", [try Self.keys(1, lower, upper)[0], id])
        }
    }

    mutating func deleteSection(_ id: Int64) throws {
        let s = try sectionIndex(id)
        if let allowed = sectionItemsAllowed {
            let count = work.itemCount(inSection: s)
            guard count <= allowed.left else {
                throw StoreError.tooManyItems(limit: allowed.limit, named: allowed.limit - allowed.left + count)
            }
            sectionItemsAllowed = (allowed.limit, allowed.left - count)
        }
        try db.execute("UPDATE item SET trashed = 1, trashedAt = ? WHERE sectionId = ? AND trashed = 0", [now, id])
        try db.execute("UPDATE section SET deleted = 1 WHERE id = ?", [id])
        try work.deleteSection(at: s)
    }
}

/// A batch's whole change to the arrangement when it is one of the hot paths (`BatchContext.defersInPlace`):
/// made on the live snapshot in place after the commit, its stage built directly — O(the
/// section it touches) instead of a copy and a diff of the whole gallery.
enum InPlaceChange {
    /// One item moved to an index path in the snapshot after the move.
    case move(ItemID, to: GridEngine.IndexPath)
    /// New items, the first at this index path (version 0, as `Snapshot.insertItems` makes them).
    case insert([ItemID], at: GridEngine.IndexPath)
    /// An item's content version changed (a photo became ready or failed, was renamed).
    case reload(ItemID, version: UInt32)

    /// The stage that turns `before` into the snapshot after the change (none if it changes nothing).
    func stages(in before: Snapshot) -> [BatchUpdate] {
        var counts = (0..<before.sectionCount).map { before.itemCount(inSection: $0) }
        var b = BatchUpdate()
        switch self {
        case let .move(item, to):
            guard let from = before.indexPath(of: item), from != to else { return [] }
            b.itemMoves = [ItemMove(from: from, to: to)]
            counts[from.section] -= 1
            counts[to.section] += 1
        case let .insert(ids, at):
            guard !ids.isEmpty else { return [] }
            b.itemInserts = ids.enumerated().map { k, id in
                ItemInsertion(at: GridEngine.IndexPath(item: at.item + k, section: at.section), id: id, version: 0)
            }
            counts[at.section] += ids.count
        case let .reload(item, version):
            guard let at = before.indexPath(of: item), before.version(of: item) != version else { return [] }
            b.itemReloads = [ItemReload(at: at, version: version)]
        }
        b.itemCountsAfter = counts
        return [b]
    }

    func apply(to snapshot: inout Snapshot) throws {
        switch self {
        case let .move(item, to): try snapshot.moveItem(item, to: to)
        case let .insert(ids, at): try snapshot.insertItems(ids, at: at)
        case let .reload(item, version): try snapshot.setVersion(version, of: item)
        }
    }
}
