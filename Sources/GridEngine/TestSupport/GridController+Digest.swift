// Test support (issue 11): compiled only with ENGINE_TEST_SUPPORT — debug builds of the package
// (Package.swift) and engine-test.wasm (scripts/build-wasm.sh --test-support), never into
// engine.wasm or a release build.
#if ENGINE_TEST_SUPPORT

// Digests for parity tests: the same session replayed natively and in engine.wasm must
// give the same arrangement, geometry, scroll position, session and effects, bit for bit.

/// FNV-1a over 64-bit words (byte by byte), deterministic on every platform.
public struct StateHasher: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func mix(_ v: UInt64) {
        var x = v
        for _ in 0..<8 {
            value ^= x & 0xff
            value = value &* 0x0000_0100_0000_01b3
            x >>= 8
        }
    }

    public mutating func mix(_ v: Int) { mix(UInt64(bitPattern: Int64(v))) }
    public mutating func mix(_ v: Double) { mix(v.bitPattern) }
    public mutating func mix(_ v: Bool) { mix(UInt64(v ? 1 : 0)) }
    public mutating func mix(_ p: Point) { mix(p.x); mix(p.y) }
    public mutating func mix(_ r: Rect) { mix(r.minX); mix(r.minY); mix(r.width); mix(r.height) }
    public mutating func mix(_ p: IndexPath) { mix(p.section); mix(p.item) }
    public mutating func mix(_ s: String) {
        mix(s.utf8.count)
        for b in s.utf8 { mix(UInt64(b)) }
    }
}

extension GridController {
    /// A digest of the arrangement (ids, versions), every item and gap cell frame, the
    /// scroll position, the session (phase, items, proposal), placeholders and history
    /// depth. O(n).
    public var stateDigest: UInt64 {
        var h = StateHasher()
        h.mix(snapshot.sectionCount)
        for s in 0..<snapshot.sectionCount {
            h.mix(snapshot.sectionID(at: s).rawValue)
            let items = snapshot.items(inSection: s), versions = snapshot.versions(inSection: s)
            h.mix(items.count)
            for i in 0..<items.count {
                h.mix(items[i].rawValue)
                h.mix(UInt64(versions[i]))
                if let f = layout.frame(of: IndexPath(item: i, section: s)) { h.mix(f) }
            }
            if let g = layout.gapCellFrame(section: s) { h.mix(g) }
        }
        h.mix(contentOffset)
        h.mix(contentSize.height)
        if let s = session {
            h.mix(Int(s.phase.rawValue))
            h.mix(Int(s.source.rawValue))
            for item in s.items { h.mix(item.rawValue) }
            h.mix(Int(s.proposal.operation.rawValue))
            h.mix(Int(s.proposal.intent.rawValue))
        } else {
            h.mix(-1)
        }
        for p in placeholders { h.mix(p.id.itemID.rawValue); h.mix(p.dropItemIndex) }
        h.mix(history.undoEntries.count)
        h.mix(history.redoEntries.count)
        if let f = focusedItem { h.mix(f.rawValue) }
        return h.value
    }

    /// A digest of a sequence of effects: kinds, ids, index paths, numbers and strings.
    public static func digest(_ effects: [GridEffect]) -> UInt64 {
        var h = StateHasher()
        for e in effects { mix(e, into: &h) }
        return h.value
    }

    /// A digest of what `visibleCells()` returns now.
    public var renderDigest: UInt64 {
        var h = StateHasher()
        for c in visibleCells() {
            h.mix(Int(c.kind.rawValue)); h.mix(c.item.rawValue); h.mix(c.indexPath); h.mix(c.frame)
            h.mix(c.scale); h.mix(c.opacity); h.mix(c.zIndex); h.mix(Int(c.flags.rawValue))
        }
        return h.value
    }

    static func mix(_ e: GridEffect, into h: inout StateHasher) {
        switch e {
        case .scrollBy(let dy): h.mix(1); h.mix(dy)
        case .commit(let c):
            h.mix(2); h.mix(Int(c.kind.rawValue))
            for p in c.change.removed { h.mix(p.id.rawValue); h.mix(p.section.rawValue); h.mix(p.index) }
            for p in c.change.inserted { h.mix(p.id.rawValue); h.mix(p.section.rawValue); h.mix(p.index); h.mix(p.aspect) }
            for u in c.updates {
                for d in u.itemDeletes { h.mix(d) }
                for i in u.itemInserts { h.mix(i.at); h.mix(i.id.rawValue) }
                for m in u.itemMoves { h.mix(m.from); h.mix(m.to) }
                for n in u.itemCountsAfter { h.mix(n) }
                h.mix(u.changeCount)
            }
            for id in c.copies { h.mix(id.rawValue) }
        case .loadDroppedData(let p, let index, let kinds): h.mix(3); h.mix(p.itemID.rawValue); h.mix(index); h.mix(Int(kinds.rawValue))
        case .announce(let text): h.mix(4); h.mix(text)
        case .dragBegan(let items): h.mix(5); for i in items { h.mix(i.rawValue) }
        case .proposalChanged(let p): h.mix(6); h.mix(Int(p.operation.rawValue)); h.mix(Int(p.intent.rawValue))
        case .dragEnded(let op, let items): h.mix(7); h.mix(Int(op.rawValue)); for i in items { h.mix(i.rawValue) }
        case .itemTapped(let id): h.mix(8); h.mix(id.rawValue)
        }
    }
}

#endif
