// Visible-rect queries, hit-tests and drop destinations. All start with a binary search
// over section tops, then a binary search over the section's rows (grid, flow,
// justified) or over each column's y-sorted items (waterfall): O(log n + visible).
// Comparisons use absolute coordinates computed exactly as `frame(of:)` computes them,
// so the answers agree bit for bit with a brute-force scan over the frames.

extension CollectionLayout {
    /// The elements (headers, items, gap cells) whose frames overlap `rect`, section by
    /// section; within a section the header first, then items (row by row, or column by
    /// column for waterfall), then the gap cell. O(log n + result).
    public func attributes(in rect: Rect) -> [LayoutAttributes] {
        var out: [LayoutAttributes] = []
        attributes(in: rect, into: &out)
        return out
    }

    /// As `attributes(in:)`, reusing `out`'s storage (cleared first): no allocation in
    /// the steady state of a scrolling host.
    public func attributes(in rect: Rect, into out: inout [LayoutAttributes]) {
        out.removeAll(keepingCapacity: true)
        var s = _firstSection(endingAfter: rect.minY)
        let sections = numberOfSections
        while s < sections && _sectionTop[s] < rect.maxY {
            if let header = headerFrame(section: s), header.intersects(rect) {
                out.append(LayoutAttributes(kind: .header, indexPath: IndexPath(item: 0, section: s), frame: header))
            }
            _appendItems(section: s, in: rect, to: &out)
            if let gap = gapCellFrame(section: s), gap.intersects(rect) {
                out.append(LayoutAttributes(kind: .gapCell, indexPath: IndexPath(item: numberOfItems(inSection: s), section: s), frame: gap))
            }
            s += 1
        }
    }

    /// The item whose frame contains `point` (half-open), or nil. Headers and gap cells
    /// are not items. O(log n).
    public func indexPath(at point: Point) -> IndexPath? {
        guard let s = _section(containing: point.y) else { return nil }
        guard let k = _itemCandidate(section: s, at: point) else { return nil }
        let g = _sectionStart[s] + k
        return _itemFrame(g, section: s).contains(point) ? IndexPath(item: k, section: s) : nil
    }

    /// Where a drop at `point` lands: `.into(item)` on the central `dropIntoFraction` of
    /// an item (per axis); otherwise `.insert(at:)` before or after the nearest item by
    /// which half the point is in along the flow direction (x for rows, y for waterfall
    /// columns). Past the last item, or on the gap cell: the end of the section (item =
    /// count). Over the header or top inset: the start. Nil outside all sections. O(log n).
    public func dropDestination(at point: Point) -> DropDestination? {
        guard point.x >= 0, point.x < configuration.containerWidth,
              let s = _section(containing: point.y) else { return nil }
        let n = numberOfItems(inSection: s)
        if let gap = gapCellFrame(section: s), gap.contains(point) {
            return .insert(at: IndexPath(item: n, section: s))
        }
        let top = _sectionTop[s]
        if n == 0 || point.y < top + _m.itemsTop { return .insert(at: IndexPath(item: 0, section: s)) }
        let base = _sectionStart[s]
        if case .waterfall = configuration.kind {
            let (lo, hi) = _columnRange(section: s, column: _column(at: point.x))
            let j = _lastColumnEntry(lo, hi, base: base, top: top, atOrAbove: point.y)
            if j >= lo {
                let k = Int(_columnItems[base + j])
                let f = _itemFrame(base + k, section: s)
                if point.y < f.maxY {
                    if f.contains(point) && _central(f).contains(point) { return .into(IndexPath(item: k, section: s)) }
                    return .insert(at: IndexPath(item: point.y < f.midY ? k : k + 1, section: s))
                }
            }
            // In the spacing above the next item of the column, or below the column.
            let next = j + 1 < hi ? Int(_columnItems[base + j + 1]) : n
            return .insert(at: IndexPath(item: next, section: s))
        }
        let rows = _rowCount(section: s)
        let r = max(0, _lastRow(section: s, atOrAbove: point.y))
        let (lo, hi) = _rowItems(section: s, row: r)
        let first = _itemFrame(base + lo, section: s)
        if r == rows - 1 && point.y >= first.maxY { return .insert(at: IndexPath(item: n, section: s)) }
        // The item under x, if the point is on it.
        var a = lo, b = hi
        while a < b { let mid = (a + b) / 2; if _x[base + mid] <= point.x { a = mid + 1 } else { b = mid } }
        if a > lo {
            let f = _itemFrame(base + a - 1, section: s)
            if f.contains(point) && _central(f).contains(point) { return .into(IndexPath(item: a - 1, section: s)) }
        }
        // Before the first item whose centre is right of the point.
        a = lo; b = hi
        while a < b {
            let mid = (a + b) / 2
            if _x[base + mid] + _w[base + mid] / 2 <= point.x { a = mid + 1 } else { b = mid }
        }
        return .insert(at: IndexPath(item: a, section: s))
    }

    // MARK: - Internals

    func _central(_ f: Rect) -> Rect {
        let fraction = min(1, max(0, configuration.dropIntoFraction))
        return f.insetBy(dx: f.width * (1 - fraction) / 2, dy: f.height * (1 - fraction) / 2)
    }

    /// The section whose [top, bottom) holds y, or nil.
    func _section(containing y: Double) -> Int? {
        // Last section with top <= y; empty zero-height sections share their successor's
        // top and so are skipped by taking the last.
        var lo = 0, hi = numberOfSections
        while lo < hi { let mid = (lo + hi) / 2; if _sectionTop[mid] <= y { lo = mid + 1 } else { hi = mid } }
        let s = lo - 1
        guard s >= 0, y < _sectionTop[s] + _sectionHeight[s] else { return nil }
        return s
    }

    /// First section whose bottom is below y (bottoms never decrease).
    func _firstSection(endingAfter y: Double) -> Int {
        var lo = 0, hi = numberOfSections
        while lo < hi {
            let mid = (lo + hi) / 2
            if _sectionTop[mid] + _sectionHeight[mid] <= y { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The only item of section s that can contain the point (section-relative index).
    func _itemCandidate(section s: Int, at p: Point) -> Int? {
        let base = _sectionStart[s], top = _sectionTop[s]
        if numberOfItems(inSection: s) == 0 { return nil }
        if case .waterfall = configuration.kind {
            let (lo, hi) = _columnRange(section: s, column: _column(at: p.x))
            let j = _lastColumnEntry(lo, hi, base: base, top: top, atOrAbove: p.y)
            return j >= lo ? Int(_columnItems[base + j]) : nil
        }
        let r = _lastRow(section: s, atOrAbove: p.y)
        guard r >= 0 else { return nil }
        let (lo, hi) = _rowItems(section: s, row: r)
        var a = lo, b = hi
        while a < b { let mid = (a + b) / 2; if _x[base + mid] <= p.x { a = mid + 1 } else { b = mid } }
        return a > lo ? a - 1 : nil
    }

    // Rows (grid, flow, justified). Items of a row share y and height; rows are disjoint.

    func _rowCount(section s: Int) -> Int {
        switch configuration.kind {
        case .justified: return _sectionRowStart[s + 1] - _sectionRowStart[s]
        default: let n = numberOfItems(inSection: s); return (n + _m.columns - 1) / _m.columns
        }
    }

    /// Section-relative items [lo, hi) of row r.
    func _rowItems(section s: Int, row r: Int) -> (Int, Int) {
        let n = numberOfItems(inSection: s)
        switch configuration.kind {
        case .justified:
            let rs = _sectionRowStart[s], re = _sectionRowStart[s + 1]
            return (Int(_rowFirst[rs + r]), rs + r + 1 < re ? Int(_rowFirst[rs + r + 1]) : n)
        default:
            let lo = r * _m.columns
            return (lo, min(n, lo + _m.columns))
        }
    }

    func _rowFirstItem(section s: Int, row r: Int) -> Int {
        switch configuration.kind {
        case .justified: return Int(_rowFirst[_sectionRowStart[s] + r])
        default: return r * _m.columns
        }
    }

    /// Last row whose (absolute) top is <= y, or -1.
    func _lastRow(section s: Int, atOrAbove y: Double) -> Int {
        let base = _sectionStart[s], top = _sectionTop[s]
        var lo = 0, hi = _rowCount(section: s)
        while lo < hi {
            let mid = (lo + hi) / 2
            if top + _y[base + _rowFirstItem(section: s, row: mid)] <= y { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    // Waterfall columns.

    /// The column whose x-range (with the spacing to its right) holds x, clamped.
    func _column(at x: Double) -> Int {
        let step = _m.cellWidth + _m.itemSpacing
        // Int(_:) truncates, which is floor for the non-negative clamped value (and needs no libm).
        var c = step > 0 ? Int(max(0, min(Double(_m.columns - 1), (x - _m.left) / step))) : 0
        // Fix rounding at the edges with the layout's own formula for a column's x.
        while c > 0 && x < _m.left + Double(c) * step { c -= 1 }
        while c + 1 < _m.columns && x >= _m.left + Double(c + 1) * step { c += 1 }
        return c
    }

    /// Positions [lo, hi) of column c's entries in `_columnItems`, relative to the section base.
    func _columnRange(section s: Int, column c: Int) -> (Int, Int) {
        let e = s * _m.columns + c
        return (c == 0 ? 0 : Int(_columnEnd[e - 1]), Int(_columnEnd[e]))
    }

    /// Last entry j in [lo, hi) whose item's absolute top is <= y, or lo - 1.
    func _lastColumnEntry(_ lo: Int, _ hi: Int, base: Int, top: Double, atOrAbove y: Double) -> Int {
        var a = lo, b = hi
        while a < b {
            let mid = (a + b) / 2
            if top + _y[base + Int(_columnItems[base + mid])] <= y { a = mid + 1 } else { b = mid }
        }
        return a - 1
    }

    func _appendItems(section s: Int, in rect: Rect, to out: inout [LayoutAttributes]) {
        let base = _sectionStart[s], top = _sectionTop[s]
        if numberOfItems(inSection: s) == 0 { return }
        if case .waterfall = configuration.kind {
            for c in 0..<_m.columns {
                let (lo, hi) = _columnRange(section: s, column: c)
                // First entry whose bottom is below rect.minY (bottoms increase down a column).
                var a = lo, b = hi
                while a < b {
                    let mid = (a + b) / 2
                    let g = base + Int(_columnItems[base + mid])
                    if (top + _y[g]) + _h[g] <= rect.minY { a = mid + 1 } else { b = mid }
                }
                while a < hi {
                    let k = Int(_columnItems[base + a])
                    let f = _itemFrame(base + k, section: s)
                    if f.minY >= rect.maxY { break }
                    if f.intersects(rect) { out.append(LayoutAttributes(kind: .item, indexPath: IndexPath(item: k, section: s), frame: f)) }
                    a += 1
                }
            }
            return
        }
        let rows = _rowCount(section: s)
        var r = _lastRow(section: s, atOrAbove: rect.minY)
        if r < 0 { r = 0 } else {
            let g = base + _rowFirstItem(section: s, row: r)
            if (top + _y[g]) + _h[g] <= rect.minY { r += 1 }
        }
        while r < rows {
            let (lo, hi) = _rowItems(section: s, row: r)
            if top + _y[base + lo] >= rect.maxY { break }
            // First item whose right edge passes rect.minX (right edges increase along a row).
            var a = lo, b = hi
            while a < b {
                let mid = (a + b) / 2
                if _x[base + mid] + _w[base + mid] <= rect.minX { a = mid + 1 } else { b = mid }
            }
            while a < hi && _x[base + a] < rect.maxX {
                let f = _itemFrame(base + a, section: s)
                if f.intersects(rect) { out.append(LayoutAttributes(kind: .item, indexPath: IndexPath(item: a, section: s), frame: f)) }
                a += 1
            }
            r += 1
        }
    }
}
