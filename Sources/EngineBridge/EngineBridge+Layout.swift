import GridEngine

// Layout operations. Input and output layouts: docs/engine-bridge.md.

extension EngineBridge {
    /// [``BridgeLayoutKind``, a, b]
    static func _kind(_ r: inout _BridgeReader) throws(_BridgeFailure) -> LayoutKind {
        let code = try r.code(BridgeLayoutKind.self)
        let a = try r.double(), b = try r.double()
        guard a.isFinite, b.isFinite else { throw _BridgeFailure(.malformedInput) }
        switch code {
        case .grid: return .grid(columns: Int(max(1, min(a, 10_000))), aspect: b)
        case .flow: return .flow(itemSize: Size(width: a, height: b))
        case .waterfall: return .waterfall(columns: Int(max(1, min(a, 10_000))))
        case .justified: return .justified(rowHeight: a)
        }
    }

    static func _finite(_ r: inout _BridgeReader) throws(_BridgeFailure) -> Double {
        let d = try r.double()
        guard d.isFinite else { throw _BridgeFailure(.malformedInput) }
        return d
    }

    func _handle(_ r: inout _BridgeReader) throws(_BridgeFailure) -> Int {
        let h = try r.int()
        guard h < _layouts.count, _layouts[h] != nil else { throw _BridgeFailure(.unknownHandle) }
        return h
    }

    func _indexPath(_ r: inout _BridgeReader, in layout: CollectionLayout, allowEnd: Bool) throws(_BridgeFailure) -> IndexPath {
        let s = try r.int(), i = try r.int()
        guard s < layout.numberOfSections else { throw _BridgeFailure(.outOfRange) }
        let n = layout.numberOfItems(inSection: s)
        guard i < n || (allowEnd && i == n) else { throw _BridgeFailure(.outOfRange) }
        return IndexPath(item: i, section: s)
    }

    // [kind, a, b, containerWidth, headerHeight, top, left, bottom, right, itemSpacing,
    //  lineSpacing, showsGapCells, dropIntoFraction] → [handle]
    mutating func _layoutCreate(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let kind = try Self._kind(&r)
        var values: [Double] = []
        for _ in 0..<10 { values.append(try Self._finite(&r)) }
        let config = LayoutConfiguration(
            kind: kind, containerWidth: values[0], headerHeight: values[1],
            sectionInsets: EdgeInsets(top: values[2], left: values[3], bottom: values[4], right: values[5]),
            itemSpacing: values[6], lineSpacing: values[7], showsGapCells: values[8] != 0,
            dropIntoFraction: values[9])
        _layouts.append(CollectionLayout(configuration: config))
        out.append(Double(_layouts.count - 1))
    }

    // [handle, sectionCount, count × sectionCount, aspect × total] → [width, height]
    mutating func _layoutPrepare(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _handle(&r)
        let sections = try r.count(stride: 1)
        var counts: [Int] = []
        counts.reserveCapacity(sections)
        var total = 0
        for _ in 0..<sections {
            let n = try r.int()
            total += n
            // Checked as it grows, so a hostile count cannot overflow 32-bit Int on wasm32.
            guard total <= r.remaining else { throw _BridgeFailure(.malformedInput) }
            counts.append(n)
        }
        var aspects: [Double] = []
        aspects.reserveCapacity(total)
        for _ in 0..<total { aspects.append(try r.double()) }
        _layouts[h]!.prepare(aspects: aspects, sectionCounts: counts)
        let size = _layouts[h]!.contentSize
        out.append(size.width)
        out.append(size.height)
    }

    // [handle] → [width, height, sectionCount, per section: header x y w h, gap x y w h
    //  (w = -1 when absent), per item (in index-path order): x y w h]
    func _layoutFrames(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let layout = _layouts[try _handle(&r)]!
        let size = layout.contentSize
        out.append(size.width)
        out.append(size.height)
        out.append(Double(layout.numberOfSections))
        func put(_ f: Rect?) {
            if let f { out.append(f.minX); out.append(f.minY); out.append(f.width); out.append(f.height) }
            else { out.append(0); out.append(0); out.append(-1); out.append(-1) }
        }
        for s in 0..<layout.numberOfSections {
            put(layout.headerFrame(section: s))
            put(layout.gapCellFrame(section: s))
        }
        for s in 0..<layout.numberOfSections {
            for i in 0..<layout.numberOfItems(inSection: s) { put(layout.frame(of: IndexPath(item: i, section: s))) }
        }
    }

    // [handle, x, y, w, h] → [count, per element: kind (0 item, 1 header, 2 gap), section, item, x, y, w, h]
    func _layoutAttributes(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let layout = _layouts[try _handle(&r)]!
        let rect = Rect(x: try Self._finite(&r), y: try Self._finite(&r), width: try Self._finite(&r), height: try Self._finite(&r))
        let found = layout.attributes(in: rect)
        out.append(Double(found.count))
        for a in found {
            switch a.kind {
            case .item: out.append(0)
            case .header: out.append(1)
            case .gapCell: out.append(2)
            }
            out.append(Double(a.indexPath.section)); out.append(Double(a.indexPath.item))
            out.append(a.frame.minX); out.append(a.frame.minY); out.append(a.frame.width); out.append(a.frame.height)
        }
    }

    // [handle, x, y] → [section, item] (−1, −1 when no item is there)
    func _layoutHitTest(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let layout = _layouts[try _handle(&r)]!
        let p = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        if let ip = layout.indexPath(at: p) { out.append(Double(ip.section)); out.append(Double(ip.item)) }
        else { out.append(-1); out.append(-1) }
    }

    // [handle, x, y] → [kind (0 none, 1 insert at, 2 into), section, item]
    func _layoutDropDestination(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let layout = _layouts[try _handle(&r)]!
        let p = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        switch layout.dropDestination(at: p) {
        case .insert(let ip)?: out.append(1); out.append(Double(ip.section)); out.append(Double(ip.item))
        case .into(let ip)?: out.append(2); out.append(Double(ip.section)); out.append(Double(ip.item))
        case nil: out.append(0); out.append(-1); out.append(-1)
        }
    }

    // [handle, fromSection, fromItem, toSection, toItem] → []; `to` is the final index path.
    mutating func _layoutMoveItem(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _handle(&r)
        let from = try _indexPath(&r, in: _layouts[h]!, allowEnd: false)
        let s = try r.int(), i = try r.int()
        let layout = _layouts[h]!
        guard s < layout.numberOfSections else { throw _BridgeFailure(.outOfRange) }
        // After removal the destination section has one item fewer if it is the source's.
        let limit = layout.numberOfItems(inSection: s) - (s == from.section ? 1 : 0)
        guard i <= limit else { throw _BridgeFailure(.outOfRange) }
        _layouts[h]!.itemMoved(from: from, to: IndexPath(item: i, section: s))
    }

    // [handle, section, item, aspect] → []
    mutating func _layoutInsertItem(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _handle(&r)
        let ip = try _indexPath(&r, in: _layouts[h]!, allowEnd: true)
        _layouts[h]!.itemInserted(at: ip, aspect: try r.double())
    }

    // [handle, section, item] → []
    mutating func _layoutDeleteItem(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _handle(&r)
        let ip = try _indexPath(&r, in: _layouts[h]!, allowEnd: false)
        _layouts[h]!.itemDeleted(at: ip)
    }

    // [handle, kind, a, b, anchorX, anchorY, offsetX, offsetY] → [offsetX, offsetY, width, height]
    mutating func _layoutReconfigure(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _handle(&r)
        let kind = try Self._kind(&r)
        let anchor = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        let offset = Point(x: try Self._finite(&r), y: try Self._finite(&r))
        let next = _layouts[h]!.reconfigure(kind: kind, keeping: anchor, contentOffset: offset)
        let size = _layouts[h]!.contentSize
        out.append(next.x); out.append(next.y); out.append(size.width); out.append(size.height)
    }

    // [handle, shows (0/1)] → [width, height]
    mutating func _layoutSetGapCells(_ r: inout _BridgeReader, _ out: inout [Double]) throws(_BridgeFailure) {
        let h = try _handle(&r)
        _layouts[h]!.setShowsGapCells(try r.double() != 0)
        let size = _layouts[h]!.contentSize
        out.append(size.width); out.append(size.height)
    }

    // [handle] → []; the handle is not reused.
    mutating func _layoutDestroy(_ r: inout _BridgeReader) throws(_BridgeFailure) {
        let h = try _handle(&r)
        _layouts[h] = nil
    }
}
