import GridEngine

/// The engine's staged batch updates as JSON, so that a client applies them to its own
/// Snapshot stage by stage (each stage is one UIKit-consistent performBatchUpdates).
/// Index paths are `[section, item]` pairs.
public struct StageJSON: Codable, Equatable, Sendable {
    public struct SectionInsert: Codable, Equatable, Sendable {
        public var index: Int
        public var id: UInt64
        public var items: [UInt64]
        public var versions: [UInt32]
    }
    public struct ItemInsert: Codable, Equatable, Sendable {
        public var at: [Int]
        public var id: UInt64
        public var version: UInt32
    }
    public struct Move: Codable, Equatable, Sendable {
        public var from: [Int]
        public var to: [Int]
    }
    public struct Reload: Codable, Equatable, Sendable {
        public var at: [Int]
        public var version: UInt32
    }

    public var sectionDeletes: [Int]
    public var sectionInserts: [SectionInsert]
    public var sectionMoves: [Move]
    public var itemDeletes: [[Int]]
    public var itemInserts: [ItemInsert]
    public var itemMoves: [Move]
    public var itemReloads: [Reload]
    public var itemCountsAfter: [Int]
    /// The ids of the items at `itemDeletes`, at the sources of `itemMoves` and at
    /// `itemReloads`, in the same order: a client that keeps no arrangement of its own (the
    /// page: its engine holds the order) learns which items a stage touches without looking
    /// them up. Absent in the stored catch-up log, which needs only the index paths.
    public var deletedIDs: [UInt64]?
    public var movedIDs: [UInt64]?
    public var reloadedIDs: [UInt64]?

    public init(_ b: BatchUpdate) {
        sectionDeletes = b.sectionDeletes
        sectionInserts = b.sectionInserts.map { SectionInsert(index: $0.index, id: $0.id.rawValue, items: $0.items.map(\.rawValue), versions: $0.versions) }
        sectionMoves = b.sectionMoves.map { Move(from: [$0.from], to: [$0.to]) }
        itemDeletes = b.itemDeletes.map { [$0.section, $0.item] }
        itemInserts = b.itemInserts.map { ItemInsert(at: [$0.at.section, $0.at.item], id: $0.id.rawValue, version: $0.version) }
        itemMoves = b.itemMoves.map { Move(from: [$0.from.section, $0.from.item], to: [$0.to.section, $0.to.item]) }
        itemReloads = b.itemReloads.map { Reload(at: [$0.at.section, $0.at.item], version: $0.version) }
        itemCountsAfter = b.itemCountsAfter
    }

    /// The stages as JSON with the ids of the items they delete, move and reload, read from
    /// `before` (the snapshot the first stage applies to) and each stage's result in turn.
    /// O(k) for one stage; each further stage applies the one before it to a copy, O(n).
    public static func stages(_ stages: [BatchUpdate], from before: Snapshot) -> [StageJSON] {
        var current = before
        var out: [StageJSON] = []
        out.reserveCapacity(stages.count)
        var known = true
        for (k, stage) in stages.enumerated() {
            var json = StageJSON(stage)
            let paths = stage.itemDeletes + stage.itemMoves.map(\.from) + stage.itemReloads.map(\.at)
            if known && paths.allSatisfy(current.isValid) {
                func id(_ p: IndexPath) -> UInt64 { current.itemID(at: p).rawValue }
                json.deletedIDs = stage.itemDeletes.map(id)
                json.movedIDs = stage.itemMoves.map { id($0.from) }
                json.reloadedIDs = stage.itemReloads.map { id($0.at) }
            }
            out.append(json)
            if known && k + 1 < stages.count {
                if let next = try? current.applying(stage) { current = next } else { known = false }
            }
        }
        return out
    }

    /// Back to the engine's type; nil when an index path is not a pair.
    public var batchUpdate: BatchUpdate? {
        func path(_ p: [Int]) -> IndexPath? { p.count == 2 ? IndexPath(item: p[1], section: p[0]) : nil }
        var b = BatchUpdate()
        b.sectionDeletes = sectionDeletes
        b.sectionInserts = sectionInserts.map { SectionInsertion(index: $0.index, id: SectionID($0.id), items: $0.items.map { ItemID($0) }, versions: $0.versions) }
        for m in sectionMoves {
            guard m.from.count == 1, m.to.count == 1 else { return nil }
            b.sectionMoves.append(SectionMove(from: m.from[0], to: m.to[0]))
        }
        for d in itemDeletes { guard let p = path(d) else { return nil }; b.itemDeletes.append(p) }
        for i in itemInserts { guard let p = path(i.at) else { return nil }; b.itemInserts.append(ItemInsertion(at: p, id: ItemID(i.id), version: i.version)) }
        for m in itemMoves { guard let f = path(m.from), let t = path(m.to) else { return nil }; b.itemMoves.append(ItemMove(from: f, to: t)) }
        for r in itemReloads { guard let p = path(r.at) else { return nil }; b.itemReloads.append(ItemReload(at: p, version: r.version)) }
        b.itemCountsAfter = itemCountsAfter
        return b
    }
}
