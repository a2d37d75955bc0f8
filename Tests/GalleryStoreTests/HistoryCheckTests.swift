import Testing
import Foundation
import GridEngine
import GalleryCore
@testable import GalleryStore
import StoreTestSupport

/// Issue 15: windows reconnecting at an old version right after a restart. The stretch of
/// history they reach into is checked once (one replay, however many ask at once; the others
/// wait for it), off Swift's shared threads, and a stretch that does not replay exactly still
/// cuts the window: every one of them gets the full snapshot / `reload`, never a wrong diff.
@Suite struct HistoryCheckTests {
    /// A gallery of two sections with `versions` versions of swaps and cross-section moves after
    /// `old` (returned with the snapshot at `old`), then a restart. Checkpoints every
    /// `shortHistory` (25) versions: 110 versions are 4.4 intervals.
    func galleryWithHistory(_ backend: Backend, versions: Int) async throws -> (StorePlace, Int64, GallerySnapshotJSON) {
        let (first, place) = try await makeStore(backend, historyEvery: shortHistory)
        let (g, sections) = try await makeGallery(first, sections: 2, perSection: 10)
        // Some versions first, so that `old` is inside the oldest stretch but not at its checkpoint.
        let start = try await first.snapshot(g.id)
        let a = start.sections[0].items.map(\.id), b = start.sections[1].items.map(\.id)
        var old: GallerySnapshotJSON?
        for k in 0..<versions {
            if k == 3 { old = try await first.snapshot(g.id) }
            if k % 3 == 2 {
                let snap = try await first.snapshot(g.id)
                let from = snap.sections[k % 2].items.map(\.id)
                _ = try await first.apply(gallery: g.id, [.move(items: [from[k % from.count]], to: .index(section: sections[1 - k % 2], index: k % 4))])
            } else {
                _ = try await first.apply(gallery: g.id, [.swap(a[k % a.count], b[(k * 7) % b.count])])
            }
        }
        try first.close()
        return (place, g.id, try #require(old))
    }

    /// Ten windows at `old` at once, half by `changes(since:)`, half by a live stream: the
    /// snapshot each arrives at (nil: it was told to read the gallery again).
    func tenWindows(_ store: GalleryStore, _ g: Int64, at old: GallerySnapshotJSON, now: Int64) async throws -> [Snapshot?] {
        try await withThrowingTaskGroup(of: Snapshot?.self) { group in
            for k in 0..<10 {
                group.addTask {
                    var s = try Snapshot(gallery: old)
                    if k % 2 == 0 {
                        guard let changes = try await store.changes(gallery: g, since: old.version) else { return nil }
                        #expect(changes.fromVersion == old.version && changes.toVersion == now)
                        try replay(changes, on: &s)
                        return s
                    }
                    let (stream, cancel) = try await store.subscribe(gallery: g, since: old.version)
                    defer { cancel() }
                    var at = old.version
                    for await event in stream {
                        switch event {
                        case let .changes(c):
                            #expect(c.fromVersion == at, "parts are chained")
                            try replay(c, on: &s)
                            at = c.toVersion
                            if at == now { return s }
                        case .reload:
                            return nil
                        default:
                            Issue.record("unexpected \(event)")
                            return nil
                        }
                    }
                    return nil
                }
            }
            var out: [Snapshot?] = []
            for try await s in group { out.append(s) }
            return out
        }
    }

    @Test(arguments: Backend.tested) func tenWindowsAtAnOldVersionAfterARestartShareOneCheck(_ backend: Backend) async throws {
        let (place, g, old) = try await galleryWithHistory(backend, versions: 110)
        let store = try await place.open()
        let now = try await store.snapshot(g)
        #expect(now.version >= old.version + 4 * shortHistory)
        let nowSnapshot = try Snapshot(gallery: now)
        #expect(store.historyCheckCount == 0, "loading checks only the newest stretch, on the writer")

        let arrived = try await tenWindows(store, g, at: old, now: now.version)
        #expect(arrived.count == 10)
        for s in arrived { #expect(s == nowSnapshot, "every window arrives at now with the right stages") }
        #expect(store.historyCheckCount == 1, "one replay for all ten, not one each")

        // Checked once: later windows in the same stretch need no replay.
        let again = try #require(try await store.changes(gallery: g, since: old.version + 1))
        #expect(again.toVersion == now.version)
        #expect(store.historyCheckCount == 1)
        try store.close()
    }

    @Test(arguments: Backend.tested) func aBrokenStretchStillCutsTheWindowForAllTen(_ backend: Backend) async throws {
        let (place, g, old) = try await galleryWithHistory(backend, versions: 110)
        // Version old + 1 gets the stages of old + 2 (each valid alone, not where the checkpoint after them says).
        let store = try await place.open()
        try await store.database.write { db in
            let stages = try db.value("SELECT stages FROM operation WHERE galleryId = ? AND version = ?", [g, old.version + 2], as: String.self)!
            try db.execute("UPDATE operation SET stages = ? WHERE galleryId = ? AND version = ?", [stages, g, old.version + 1])
        }
        let now = try await store.snapshot(g)
        let arrived = try await tenWindows(store, g, at: old, now: now.version)
        #expect(arrived.count == 10)
        for s in arrived { #expect(s == nil, "told to read the gallery again, never a wrong diff") }
        #expect(store.historyCheckCount == 1, "the stretch was replayed once and the window cut")
        #expect(try await store.changes(gallery: g, since: old.version + 2 * shortHistory) == nil, "the cut holds for the whole unchecked stretch")
        #expect(store.historyCheckCount == 1)
        // The window now starts at the version the restart found (a checkpoint of its own): from
        // there, catch-up goes on.
        let ids = now.sections[0].items.map(\.id)
        _ = try await store.apply(gallery: g, [.move(items: [ids[0]], to: .end(section: now.sections[1].id))])
        let recent = try #require(try await store.changes(gallery: g, since: now.version))
        #expect(recent.stages.count == 1 && recent.toVersion == now.version + 1)
        #expect(store.historyCheckCount == 1)
        try store.close()
    }

    /// The checkpoints a history check replays between are rows too: one changed on disk — two
    /// items swapped, one content version changed, an id written twice, the blob cut short —
    /// cuts the window as a damaged stage does (session 16's check compares the arrays it
    /// arrives at with the blob as read, and builds a snapshot only of the one it starts from).
    @Test(arguments: Backend.tested) func aCheckpointChangedOnDiskCutsTheWindow(_ backend: Backend) async throws {
        for damage in ["swap", "version", "duplicate", "truncate"] {
            let (place, g, old) = try await galleryWithHistory(backend, versions: 110)
            let store = try await place.open()
            let versions = try await store.database.read { db in
                try db.values("SELECT version FROM checkpoint WHERE galleryId = ? ORDER BY version", [g], as: Int64.self)
            }
            // The checkpoint after `old`'s (the first one, made when the gallery was empty, has
            // nothing to damage): the ten windows at `old` replay up to it and compare; for
            // "duplicate" a catch-up from just after it starts there first (the blob decodes, but
            // it is not a snapshot: one id twice).
            let target = try #require(versions.first { $0 > old.version })
            try await store.database.write { db in
                let stored = try #require(try db.value("SELECT snapshot FROM checkpoint WHERE galleryId = ? AND version = ?", [g, target], as: Data.self))
                // The first section with two items or more, damaged and written back in the
                // blob's own encoding (CatchUpLog.encode(sections:)).
                var sections = try #require(CatchUpLog.decodeSections(stored))
                let at = try #require(sections.firstIndex { $0.items.count >= 2 })
                switch damage {
                case "swap": sections[at].items.swapAt(0, 1)
                case "version": sections[at].versions[0] &+= 1
                case "duplicate": sections[at].items[0] = sections[at].items[1]
                default: break
                }
                var blob = CatchUpLog.encode(sections: sections)
                if damage == "truncate" { blob.removeLast(4) }
                try db.execute("UPDATE checkpoint SET snapshot = ? WHERE galleryId = ? AND version = ?", [blob, g, target])
            }
            let now = try await store.snapshot(g)
            if damage == "duplicate" {
                #expect(try await store.changes(gallery: g, since: target + 5) == nil, "a checkpoint with an id twice is no start")
                #expect(store.historyCheckCount == 1)
            }
            let arrived = try await tenWindows(store, g, at: old, now: now.version)
            #expect(arrived.count == 10)
            for s in arrived { #expect(s == nil, "\(damage): told to read the gallery again, never a wrong diff") }
            #expect(store.historyCheckCount == 1, "\(damage)")
            #expect(try await store.changes(gallery: g, since: old.version + 2 * shortHistory) == nil, "\(damage): the cut holds for the whole unchecked stretch")
            try store.close()
        }
    }
}
