import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// The catch-up window outlives the process: stages are logged with every version and
/// checkpoints are kept in SQLite, so a reopened store answers `changes(since:)` with the staged
/// diff — and never with a wrong one when the persisted history does not add up.
@Suite struct CatchUpTests {
    /// Opens a store on `place` (a restart), runs `body`, and lets the store go.
    func withStore<T>(_ place: StorePlace, _ body: (GalleryStore) async throws -> T) async throws -> T {
        let store = try await place.open()
        return try await body(store)
    }

    /// Some versions of every kind: moves, swap, copy, trash, restore, section ops, renames.
    func mixedBatches(_ store: GalleryStore, _ g: Int64) async throws {
        let snap = try await store.snapshot(g)
        let a = snap.sections[0].items.map(\.id), b = snap.sections[1].items.map(\.id)
        _ = try await store.apply(gallery: g, [.move(items: [a[0]], to: .index(section: snap.sections[1].id, index: 2))])
        _ = try await store.apply(gallery: g, [.swap(a[1], b[3])])
        _ = try await store.apply(gallery: g, [.copy(items: [a[2], b[0]], to: .before(item: a[4]))])
        _ = try await store.apply(gallery: g, [.trash(items: [a[5], b[1]])])
        _ = try await store.apply(gallery: g, [.restore(items: [a[5]])])
        _ = try await store.apply(gallery: g, [.renameItem(a[3], title: "renamed")])
        let created = try await store.apply(gallery: g, [.createSection(title: "New", index: 0)]).createdSections[0]
        _ = try await store.apply(gallery: g, [.move(items: [a[6], a[7]], to: .end(section: created))])
        _ = try await store.apply(gallery: g, [.renameSection(created, title: "Newer"), .moveSection(created, index: 2)])
        _ = try await store.renameGallery(g, name: "Renamed gallery")
    }

    @Test(arguments: Backend.tested) func aReopenedStoreAnswersCatchUpWithTheStagedDiff(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 8)
        let old = try await first.snapshot(g.id)
        try await mixedBatches(first, g.id)
        let middle = try await first.snapshot(g.id)
        try first.close()

        try await withStore(place) { store in
            let now = try await store.snapshot(g.id)
            #expect(now.version == old.version + 10)
            for from in [old, middle] {
                let changes = try #require(try await store.changes(gallery: g.id, since: from.version), "a diff from \(from.version), not nil")
                #expect(changes.fromVersion == from.version && changes.toVersion == now.version)
                #expect(changes.name == "Renamed gallery")
                var s = try Snapshot(gallery: from)
                try replay(changes, on: &s)
                #expect(s == (try Snapshot(gallery: now)))
            }
            // Every inserted or reloaded item comes with its data.
            let changes = try #require(try await store.changes(gallery: g.id, since: old.version))
            let sent = Set(changes.items.map(\.id))
            for stage in changes.stages {
                for i in stage.itemInserts { #expect(sent.contains(Int64(i.id))) }
            }
        }
    }

    @Test(arguments: Backend.tested) func catchUpReachesAcrossTwoRestarts(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 8)
        let early = try await first.snapshot(g.id)
        let ids = early.sections[0].items.map(\.id)
        _ = try await first.apply(gallery: g.id, [.move(items: [ids[0]], to: .end(section: early.sections[1].id))])
        try first.close()
        try await withStore(place) { store in
            _ = try await store.apply(gallery: g.id, [.trash(items: [ids[1]])])
            try store.close()
        }
        try await withStore(place) { store in
            _ = try await store.apply(gallery: g.id, [.swap(ids[2], ids[3])])
            let now = try await store.snapshot(g.id)
            let changes = try #require(try await store.changes(gallery: g.id, since: early.version))
            var s = try Snapshot(gallery: early)
            try replay(changes, on: &s)
            #expect(s == (try Snapshot(gallery: now)))
        }
    }

    @Test(arguments: Backend.tested) func aHoleInTheLogOrABadCheckpointGivesTheSnapshotNeverAWrongDiff(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 8)
        let old = try await first.snapshot(g.id)
        try await mixedBatches(first, g.id)
        try first.close()

        // A version whose stages are missing (as for versions logged before migration v2).
        try await withStore(place) { store in
            try await store.database.write { db in
                try db.execute("UPDATE operation SET stages = NULL WHERE galleryId = ? AND version = ?", [g.id, old.version + 4])
            }
            #expect(try await store.changes(gallery: g.id, since: old.version) == nil, "before the hole: full snapshot")
            #expect(try await store.changes(gallery: g.id, since: old.version + 3) == nil)
            try store.close()
        }
        // The run with the hole checkpointed the version it loaded at (old + 10): after another
        // version and a restart, catch-up reaches back to there, not past the hole.
        try await withStore(place) { store in
            let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
            _ = try await store.apply(gallery: g.id, [.move(items: [ids[0]], to: .end(section: try await store.snapshot(g.id).sections[0].id))])
            try store.close()
        }
        try await withStore(place) { store in
            let now = try await store.snapshot(g.id)
            #expect(now.version == old.version + 11)
            #expect(try await store.changes(gallery: g.id, since: old.version + 5) == nil)
            let c = try #require(try await store.changes(gallery: g.id, since: old.version + 10))
            #expect(c.stages.count == 1 && c.stages[0].itemMoves.count == 1)
            try store.close()
        }

        // Stages that do not lead where the checkpoints say (tampered). Run 1 makes versions from
        // its load checkpoint (v0); run 2 loads at old + 10 (a checkpoint) and adds one version.
        let (other, place2) = try await makeStore(backend)
        let (g2, _) = try await makeGallery(other, sections: 2, perSection: 8)
        let old2 = try await other.snapshot(g2.id)
        try await mixedBatches(other, g2.id)
        try other.close()
        try await withStore(place2) { store in
            let ids = try await store.snapshot(g2.id).sections[0].items.map(\.id)
            _ = try await store.apply(gallery: g2.id, [.move(items: [ids[0]], to: .end(section: try await store.snapshot(g2.id).sections[0].id))])
            try await store.database.write { db in
                let swapStages = try db.value("SELECT stages FROM operation WHERE galleryId = ? AND version = ?", [g2.id, old2.version + 2], as: String.self)!
                try db.execute("UPDATE operation SET stages = ? WHERE galleryId = ? AND version = ?", [swapStages, g2.id, old2.version + 1])
            }
            try store.close()
        }
        try await withStore(place2) { store in
            let now = try await store.snapshot(g2.id)
            // The newest stretch (checked at load) serves catch-up…
            let recent = try #require(try await store.changes(gallery: g2.id, since: old2.version + 10))
            #expect(recent.stages.count == 1)
            // …the older one does not arrive at the checkpoint after it: the snapshot instead, every time.
            let early = try await store.changes(gallery: g2.id, since: old2.version)
            #expect(early == nil, "tampered stages are not used")
            let early2 = try await store.changes(gallery: g2.id, since: old2.version + 5)
            #expect(early2 == nil, "the window was cut after the bad stretch")
            let again = try #require(try await store.changes(gallery: g2.id, since: old2.version + 10))
            #expect(again.toVersion == now.version)
        }
        // Untampered, the same older stretch is checked once and then serves catch-up.
        let (third, place3) = try await makeStore(backend)
        let (g3, _) = try await makeGallery(third, sections: 2, perSection: 8)
        let old3 = try await third.snapshot(g3.id)
        try await mixedBatches(third, g3.id)
        try third.close()
        try await withStore(place3) { store in
            let ids = try await store.snapshot(g3.id).sections[0].items.map(\.id)
            _ = try await store.apply(gallery: g3.id, [.move(items: [ids[0]], to: .end(section: try await store.snapshot(g3.id).sections[0].id))])
            try store.close()
        }
        try await withStore(place3) { store in
            let now = try await store.snapshot(g3.id)
            for _ in 0..<2 {
                var s = try Snapshot(gallery: old3)
                try replay(try #require(try await store.changes(gallery: g3.id, since: old3.version)), on: &s)
                #expect(s == (try Snapshot(gallery: now)))
            }
        }
    }

    @Test(arguments: Backend.tested) func checkpointsEvery250VersionsAndTheWindowAfterRestart(_ backend: Backend) async throws {
        let (first, place) = try await makeStore(backend)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 4)
        let ids = try await first.snapshot(g.id).sections[0].items.map(\.id)
        var snapshots: [Int64: GallerySnapshotJSON] = [:]
        for k in 0..<260 {
            let r = try await first.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])])
            if r.version == 100 || r.version == 251 { snapshots[r.version] = try await first.snapshot(g.id) }
        }
        let versions = try await first.database.read { db in
            try db.values("SELECT version FROM checkpoint WHERE galleryId = ? ORDER BY version", [g.id], as: Int64.self)
        }
        #expect(versions == [0, 250], "the load checkpoint of this run and the 250th version")
        try first.close()

        // Without the load checkpoint, the window starts at version 250.
        try await withStore(place) { store in
            try await store.database.write { db in try db.execute("DELETE FROM checkpoint WHERE version = 0") }
            let now = try await store.snapshot(g.id)
            #expect(try await store.changes(gallery: g.id, since: 100) == nil, "older than the oldest checkpoint")
            let c = try #require(try await store.changes(gallery: g.id, since: 251))
            var s = try Snapshot(gallery: snapshots[251]!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: now)))
        }
    }

    /// Session 31: no batch carries the whole compaction. The batch that writes a checkpoint only
    /// inserts it; steps every `compactEvery` versions delete the checkpoint that left the window
    /// and at most `compactRows` log rows behind it (a new oldest checkpoint frees 100 rows here:
    /// more than one step takes), and the log still ends exactly at the oldest checkpoint kept.
    @Test func theLogIsCompactedInStepsNotByTheCheckpointsBatch() async throws {
        let (store, _) = try await makeStore(.sqlite, historyEvery: 100)
        let (g, _) = try await makeGallery(store, sections: 2, perSection: 4)
        let ids = try await store.snapshot(g.id).sections[0].items.map(\.id)
        func counts() async throws -> (rows: Int, checkpoints: Int) {
            try await store.database.read { db in
                (try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g.id], as: Int.self)!,
                 try db.value("SELECT COUNT(*) FROM checkpoint WHERE galleryId = ?", [g.id], as: Int.self)!)
            }
        }
        var before = try await counts()
        var capped = 0
        for k in 0..<1_100 {
            let r = try await store.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])])
            let after = try await counts()
            let deleted = before.rows + 1 - after.rows
            if r.version % CatchUpLog.compactEvery == 0 {
                #expect(deleted <= CatchUpLog.compactRows, "version \(r.version) deleted \(deleted) log rows")
                if deleted == CatchUpLog.compactRows { capped += 1 }
            } else {
                #expect(deleted == 0, "version \(r.version) is no step but deleted \(deleted) log rows")
                #expect(after.checkpoints >= before.checkpoints, "version \(r.version) is no step but deleted a checkpoint")
            }
            before = after
        }
        #expect(capped > 0, "a step stopped at compactRows at least once")
        let (rows, checkpoints, oldestRow, oldestCheckpoint, version) = try await store.database.read { db in
            (try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g.id], as: Int.self)!,
             try db.value("SELECT COUNT(*) FROM checkpoint WHERE galleryId = ?", [g.id], as: Int.self)!,
             try db.value("SELECT MIN(version) FROM operation WHERE galleryId = ?", [g.id], as: Int64.self)!,
             try db.value("SELECT MIN(version) FROM checkpoint WHERE galleryId = ?", [g.id], as: Int64.self)!,
             try db.value("SELECT version FROM gallery WHERE id = ?", [g.id], as: Int64.self)!)
        }
        // The last step kept the newest nine checkpoints written by then (checkpoint c is written
        // by the batch of version c + 1), and the log from the oldest of them on; a checkpoint
        // written after that step waits for the next one.
        let lastStep = version - version % CatchUpLog.compactEvery
        let newestAtStep = (lastStep - 1) / 100 * 100
        let oldestKept = newestAtStep - 100 * Int64(LiveGallery.maxCheckpoints)
        let writtenSince = (version - 1) / 100 * 100 > newestAtStep ? 1 : 0
        #expect(oldestCheckpoint == oldestKept && checkpoints == LiveGallery.maxCheckpoints + 1 + writtenSince,
                "\(checkpoints) checkpoints from \(oldestCheckpoint) at version \(version)")
        #expect(oldestRow == oldestKept + 1 && rows == Int(version - oldestKept), "\(rows) rows from \(oldestRow) at version \(version)")
        // Catch-up from inside the window (memory's: eight intervals) still replays.
        #expect(try await store.changes(gallery: g.id, since: version - 500) != nil)
        #expect(try await store.changes(gallery: g.id, since: oldestKept - 50) == nil, "behind the window: the snapshot")
    }

    /// Issue 15: the log is compacted behind the checkpoints — bounded on disk however many
    /// versions a gallery sees — and catch-up inside the window still replays exactly, after a restart too.
    @Test(arguments: Backend.tested) func theLogStaysBoundedBehindTheWindow(_ backend: Backend) async throws {
        // Checkpoints every 25 versions (`shortHistory`): 260 versions are 10.4 intervals, two more than the window.
        let (first, place) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 4)
        let ids = try await first.snapshot(g.id).sections[0].items.map(\.id)
        var kept: GallerySnapshotJSON?
        for k in 0..<260 {
            let r = try await first.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])])
            if r.version == 190 { kept = try await first.snapshot(g.id) }
        }
        let (rows, oldest) = try await first.database.read { db in
            (try db.value("SELECT COUNT(*) FROM operation WHERE galleryId = ?", [g.id], as: Int.self)!,
             try db.value("SELECT MIN(version) FROM operation WHERE galleryId = ?", [g.id], as: Int64.self)!)
        }
        let now = try await first.snapshot(g.id)
        // Checkpoints at every 25th version; the last one (250) keeps those down to 50.
        #expect(oldest == 51 && rows == Int(now.version) - 50, "versions up to the oldest checkpoint (50) are gone: \(rows) rows from \(oldest), version \(now.version)")
        for store in [first] {
            let c = try #require(try await store.changes(gallery: g.id, since: 190))
            var s = try Snapshot(gallery: kept!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: now)))
        }
        try first.close()
        try await withStore(place) { store in
            let c = try #require(try await store.changes(gallery: g.id, since: 190), "the window survives the restart")
            var s = try Snapshot(gallery: kept!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: now)))
            #expect(try await store.changes(gallery: g.id, since: 40) == nil, "behind the window: the snapshot")
        }
    }

    /// The hot path (one item moved, made on the live snapshot in place after the commit) across
    /// sections and checkpoints: the live snapshot, the rows, the checkpoints and catch-up agree.
    @Test(arguments: Backend.tested) func changesInPlaceAgreeWithTheRowsTheCheckpointsAndCatchUp(_ backend: Backend) async throws {
        // Checkpoints every 25 versions (`shortHistory`): 130 batches pass five of them.
        let (first, place) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, _) = try await makeGallery(first, sections: 3, perSection: 5)
        var rng = SystemRandomNumberGenerator()
        var at: [Int64: GallerySnapshotJSON] = [:]
        for _ in 0..<130 {
            let now = try await first.snapshot(g.id)
            let all = now.sections.flatMap(\.items).map(\.id)
            let section = now.sections.randomElement(using: &rng)!
            let item = all.randomElement(using: &rng)!
            let index = Int.random(in: 0...section.items.filter { $0.id != item }.count, using: &rng)
            // Mostly drags; between them an upload's file (an insert) and a photo becoming ready or
            // failing (a reload): the other changes made in place (InPlaceChange).
            let pending = now.sections.flatMap(\.items).filter { $0.state == .pending }.map(\.id)
            let roll = Int.random(in: 0..<10, using: &rng)
            let r: BatchResult
            if roll < 2 {
                let at = Int.random(in: 0...section.items.count, using: &rng)
                r = try await first.apply(gallery: g.id, [.insert([NewItem(title: "new")], at: .index(section: section.id, index: at))], payload: "upload")
                let placed = try await first.snapshot(g.id).sections.first { $0.id == section.id }!.items
                #expect(placed[at].id == r.createdItems[0] && placed[at].state == .pending)
            } else if roll < 4, let done = pending.randomElement(using: &rng) {
                let outcome: IngestOutcome = roll == 2 ? .ready(hash: String(repeating: "0", count: 64), width: 40, height: 30) : .failed(reason: "bad")
                r = try await first.apply(gallery: g.id, [.finish(item: done, outcome)], payload: "finish")
                let state = try await first.snapshot(g.id).sections.flatMap(\.items).first { $0.id == done }!.state
                #expect(state == (roll == 2 ? .ready : .failed))
            } else {
                r = try await first.apply(gallery: g.id, [.move(items: [item], to: .index(section: section.id, index: index))])
                let after = try await first.snapshot(g.id)
                #expect(after.sections.first { $0.id == section.id }!.items.map(\.id).firstIndex(of: item) == index)
            }
            if [10, 25, 26, 50].contains(r.version) { at[r.version] = try await first.snapshot(g.id) }
        }
        let final = try await first.snapshot(g.id)
        for since in [10, 26] as [Int64] {
            let c = try #require(try await first.changes(gallery: g.id, since: since))
            var s = try Snapshot(gallery: at[since]!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: final)), "catch-up from \(since) in this process")
        }
        let checkpoints = try await first.database.read { db in
            try db.fetchAll("SELECT version, snapshot FROM checkpoint WHERE galleryId = ? AND version IN (25, 50)", [g.id])
        }
        #expect(checkpoints.count == 2)
        try first.close()
        try await withStore(place) { store in
            #expect(try await store.snapshot(g.id) == final, "the rows hold what the live snapshot held")
            let c = try #require(try await store.changes(gallery: g.id, since: 26), "replayed from the checkpoint at 25 after a restart")
            var s = try Snapshot(gallery: at[26]!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: final)))
        }
    }

    /// Issue 15 (moves at 1M): a checkpoint's snapshot is written by the batch after it, from that
    /// batch's snapshot before (no copy of the live snapshot at the checkpoint); a process stopped
    /// in between loses nothing (the next load writes a checkpoint at the version it finds); the
    /// interval grows with the gallery.
    @Test(arguments: Backend.tested) func aCheckpointIsWrittenByTheNextBatchAndTheIntervalGrowsWithTheGallery(_ backend: Backend) async throws {
        #expect(LiveGallery.checkpointInterval(itemCount: 0) == 250)
        #expect(LiveGallery.checkpointInterval(itemCount: 49_999) == 250)
        #expect(LiveGallery.checkpointInterval(itemCount: 50_000) == 500)
        #expect(LiveGallery.checkpointInterval(itemCount: 99_999) == 500)
        #expect(LiveGallery.checkpointInterval(itemCount: 100_000) == 1_000)
        #expect(LiveGallery.checkpointInterval(itemCount: 200_000) == 2_000)
        #expect(LiveGallery.checkpointInterval(itemCount: 1_000_000) == 2_000)
        #expect(LiveGallery.checkpointInterval(itemCount: 1_600_000) == 2_000)
        // A store opened with a shorter interval (the history tests): the same steps, scaled.
        #expect(LiveGallery.checkpointInterval(itemCount: 49_999, every: shortHistory) == 25)
        #expect(LiveGallery.checkpointInterval(itemCount: 100_000, every: shortHistory) == 100)
        #expect(LiveGallery.checkpointInterval(itemCount: 1_000_000, every: shortHistory) == 200)

        // Checkpoints every 25 versions (`shortHistory`): the same steps as at 250 and 500.
        let (first, place) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, _) = try await makeGallery(first, sections: 2, perSection: 4)
        let ids = try await first.snapshot(g.id).sections[0].items.map(\.id)
        func versions(_ store: GalleryStore) async throws -> [Int64] {
            try await store.database.read { db in
                try db.values("SELECT version FROM checkpoint WHERE galleryId = ? ORDER BY version", [g.id], as: Int64.self)
            }
        }
        var at25: GallerySnapshotJSON?
        var k = 0
        while try await first.gallery(g.id).version < 25 {
            let r = try await first.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])])
            if r.version == 25 { at25 = try await first.snapshot(g.id) }
            k += 1
        }
        #expect(try await versions(first) == [0], "version 25's checkpoint waits for the next batch")
        #expect(first.live.withLock { $0[g.id]!.checkpoints } == [0, 25])
        _ = try await first.apply(gallery: g.id, [.swap(ids[0], ids[3])])
        #expect(try await versions(first) == [0, 25])
        let blob = try await first.database.read { db in try CatchUpLog.loadCheckpoint(db, gallery: g.id, version: 25) }
        #expect(blob?.snapshot == (try Snapshot(gallery: at25!)), "the checkpoint holds the snapshot at 25, not at 26")

        // Stopped right after a checkpoint version: the next load writes it.
        while try await first.gallery(g.id).version < 50 {
            _ = try await first.apply(gallery: g.id, [.swap(ids[k % 2], ids[2 + k % 2])])
            k += 1
        }
        let at50 = try await first.snapshot(g.id)
        try first.close()
        try await withStore(place) { store in
            let c = try #require(try await store.changes(gallery: g.id, since: 25), "catch-up from the checkpoint written by the next batch")
            #expect(try await versions(store) == [0, 25, 50], "the load wrote version 50's checkpoint")
            var s = try Snapshot(gallery: at25!)
            try replay(c, on: &s)
            #expect(s == (try Snapshot(gallery: at50)))
            #expect(store.live.withLock { $0[g.id]!.pendingCheckpoint } == nil)
        }
    }

    /// The blob's bytes are fixed (GS2: blobs written now must decode in later versions).
    @Test func snapshotBlobBytesAreTheDocumentedLayout() throws {
        let s = try Snapshot([(id: SectionID(7), items: [ItemID(1), ItemID(0x0102)], versions: [0, 3])])
        // "GS2\0", 1 section, id 7, 2 items, ids +1 (zigzag 2) and +0x101 (zigzag 0x202: 0x82 0x04), versions 0 and 3.
        let expected: [UInt8] = [0x47, 0x53, 0x32, 0, 1, 7, 2, 2, 0x82, 0x04, 0, 3]
        #expect([UInt8](CatchUpLog.encode(s)) == expected)
        #expect(CatchUpLog.decode(Data(expected)) == s)
        // A difference below zero: +0x102 (zigzag 0x204: 0x84 0x04), then −0x101 (zigzag 0x201: 0x81 0x04).
        let back = try Snapshot([(id: SectionID(7), items: [ItemID(0x0102), ItemID(1)], versions: [5, 0])])
        let backBytes: [UInt8] = [0x47, 0x53, 0x32, 0, 1, 7, 2, 0x84, 0x04, 0x81, 0x04, 5, 0]
        #expect([UInt8](CatchUpLog.encode(back)) == backBytes)
        #expect(CatchUpLog.decode(Data(backBytes)) == back)
    }

    /// Checkpoints written before session 32 (GS1, 12 bytes an item) still decode.
    @Test func blobsOfTheEarlierLayoutStillDecode() throws {
        let s = try Snapshot([(id: SectionID(7), items: [ItemID(1), ItemID(0x0102)], versions: [0, 3])])
        let gs1: [UInt8] = [0x47, 0x53, 0x31, 0, 1, 0, 0, 0,
                            7, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
                            1, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x01, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 0, 3, 0, 0, 0]
        #expect(CatchUpLog.decode(Data(gs1)) == s)
        #expect(CatchUpLog.decode(Data(gs1.dropLast())) == nil)
        #expect(CatchUpLog.decode(Data(gs1 + [0])) == nil)
    }

    @Test func snapshotBlobsRoundTripAndRejectDamage() throws {
        let s = try Snapshot([(id: SectionID(7), items: [ItemID(1), ItemID(99)], versions: [0, 3]),
                              (id: SectionID(2), items: [], versions: []),
                              (id: SectionID(1 << 40), items: [ItemID(1 << 50)], versions: [UInt32.max])])
        let blob = CatchUpLog.encode(s)
        // tag 4, count 1; section 7: id 1, count 1, ids 1 + 2, versions 1 + 1; section 2: 2;
        // section 2^40: id 6, count 1, id 8 (zigzag 2^51), version 5.
        #expect(blob.count == 4 + 1 + 7 + 2 + 20)
        #expect(CatchUpLog.decode(blob) == s)
        #expect(CatchUpLog.decode(blob.dropLast()) == nil)
        #expect(CatchUpLog.decode(blob + [0]) == nil)
        var wrongTag = blob
        wrongTag[0] = 0
        #expect(CatchUpLog.decode(wrongTag) == nil)
        wrongTag = blob
        wrongTag[2] = 0x33
        #expect(CatchUpLog.decode(wrongTag) == nil, "an unknown layout")
        // Ids far apart in both directions, and the largest ones, survive the differences.
        let far = try Snapshot([(id: SectionID(UInt64.max), items: [ItemID(UInt64.max), ItemID(0), ItemID(1 << 63), ItemID(5)],
                                 versions: [1, 2, 3, 4])])
        #expect(CatchUpLog.decode(CatchUpLog.encode(far)) == far)
        // Well-formed bytes that are not a snapshot (one item in two sections) are refused too.
        let dup = Data([0x47, 0x53, 0x32, 0, 2] + [1, 1, 10, 0] + [2, 1, 10, 0])
        #expect(CatchUpLog.decodeSections(dup) != nil)
        #expect(CatchUpLog.decode(dup) == nil)
        #expect(CatchUpLog.decode(dup.prefix(5 + 4)) == nil, "count says 2 sections, 1 present")
        // Varints that run out, run past 64 bits, or a version past 32 bits.
        let tag: [UInt8] = [0x47, 0x53, 0x32, 0]
        #expect(CatchUpLog.decode(Data(tag + [1, 7, 1, 0x80, 0x80])) == nil)
        #expect(CatchUpLog.decode(Data(tag + [1, 7, 1] + [UInt8](repeating: 0xFF, count: 9) + [0x02, 0])) == nil)
        #expect(CatchUpLog.decode(Data(tag + [1, 7, 1, 2, 0x80, 0x80, 0x80, 0x80, 0x10])) == nil)
        #expect(CatchUpLog.decode(Data(tag + [1, 7, 1, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])) != nil, "UInt32.max is a version")
        // A count larger than the bytes left allocates nothing and is refused (items, sections).
        #expect(CatchUpLog.decode(Data(tag + [1, 7, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 2, 0])) == nil)
        #expect(CatchUpLog.decode(Data(tag + [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 7, 0])) == nil)
    }
}
