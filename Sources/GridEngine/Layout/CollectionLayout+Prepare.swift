// Full layout: every section from its first item. The per-kind kernels here are also the
// incremental path (`_layoutSection(_:from:)` restarts a section mid-way), so a partial
// re-layout performs exactly the arithmetic of a full one and gives identical frames.

extension CollectionLayout {
    /// Lays out `aspects[section][item]` (width / height). O(n).
    public mutating func prepare(aspects: [[Double]]) {
        var flat: [Double] = []
        var counts: [Int] = []
        counts.reserveCapacity(aspects.count)
        var total = 0
        for s in aspects { total += s.count }
        flat.reserveCapacity(total)
        for s in aspects { flat.append(contentsOf: s); counts.append(s.count) }
        prepare(aspects: flat, sectionCounts: counts)
    }

    /// Lays out `sectionCounts.count` sections whose items' aspects are concatenated in
    /// `aspects` (the flat form a bridge or store hands over without nesting). O(n).
    public mutating func prepare(aspects: [Double], sectionCounts: [Int]) {
        var total = 0
        for c in sectionCounts { precondition(c >= 0, "negative section count"); total += c }
        precondition(total == aspects.count, "section counts do not add up to the aspects")
        _aspect = aspects
        _sectionStart.removeAll(keepingCapacity: true)
        _sectionStart.append(0)
        var start = 0
        for c in sectionCounts { start += c; _sectionStart.append(start) }
        _prepareAll()
    }

    /// Replaces the configuration (kind, width, spacing...) and lays everything out again
    /// with the aspects already held. O(n).
    public mutating func reconfigure(_ configuration: LayoutConfiguration) {
        self.configuration = configuration
        _m = _Metrics(configuration)
        _prepareAll()
    }

    /// Shows or hides the end-of-section gap cells (F27). No item moves within its
    /// section; only gap frames, section heights and tops change. O(sections × columns).
    public mutating func setShowsGapCells(_ shows: Bool) {
        guard shows != configuration.showsGapCells else { return }
        configuration.showsGapCells = shows
        for s in 0..<numberOfSections { _finishSection(s) }
        _recomputeTops(from: 0)
    }

    // MARK: - Internals

    mutating func _prepareAll() {
        _hint = []; _hintFirst = []   // a full prepare is canonical: no pinned columns
        let n = _aspect.count
        let sections = _sectionStart.count - 1
        _resize(&_x, n); _resize(&_y, n); _resize(&_w, n); _resize(&_h, n)
        _resize(&_sectionTop, sections); _resize(&_sectionHeight, sections)
        _resize(&_gapX, sections); _resize(&_gapY, sections); _resize(&_gapW, sections); _resize(&_gapH, sections)
        _rowFirst.removeAll(keepingCapacity: true)
        _sectionRowStart.removeAll(keepingCapacity: true)
        _sectionRowStart.append(0)
        if case .waterfall = configuration.kind {
            _resizeInt32(&_column, n); _resizeInt32(&_columnItems, n)
            _resizeInt32(&_columnEnd, sections * _m.columns)
            _prepareWaterfallSections()
            _recomputeTops(from: 0)
            return
        } else {
            _column.removeAll(); _columnItems.removeAll(); _columnEnd.removeAll()
        }
        if case .justified = configuration.kind {
            // Every section's rows appended to one array: no per-section search and
            // splice of the row table (`_layoutJustified` restarts mid-way; a full
            // prepare starts every section at its first row, at the items' top).
            var rows = _rowFirst
            _rowFirst = []
            for s in 0..<sections {
                let base = _sectionStart[s]
                _justifyKernel(base: base, from: 0, count: _sectionStart[s + 1] - base, y0: _m.itemsTop, rows: &rows)
                _sectionRowStart.append(rows.count)
                _finishSection(s)
            }
            _rowFirst = rows
            _recomputeTops(from: 0)
            return
        }
        for s in 0..<sections {
            _layoutSection(s, from: 0)
            _finishSection(s)
        }
        _recomputeTops(from: 0)
    }

    /// A full waterfall prepare in one pass over every section: the kernel of
    /// `_layoutWaterfall`, the counting sort of `_rebuildColumns` and the waterfall case of
    /// `_finishSection`, fused so that a section costs no buffer set-up, no walk back for
    /// the column state and no second pass (10,000 sections of 10 items spent more on that
    /// than on their items). The expressions are those of the three functions, so the
    /// frames, gap cells and heights are bit-identical to theirs (the incremental path).
    mutating func _prepareWaterfallSections() {
        let sections = _sectionStart.count - 1
        let m = _m
        let columns = m.columns
        let step = m.cellWidth + m.itemSpacing
        let gap = configuration.showsGapCells
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * columns) { scratch in
        let next = scratch.baseAddress!, bottoms = next + columns
        _sectionStart.withUnsafeBufferPointer { start in
        _aspect.withUnsafeBufferPointer { a in
        _x.withUnsafeMutableBufferPointer { x in
        _y.withUnsafeMutableBufferPointer { y in
        _w.withUnsafeMutableBufferPointer { w in
        _h.withUnsafeMutableBufferPointer { h in
        _column.withUnsafeMutableBufferPointer { col in
        _columnItems.withUnsafeMutableBufferPointer { items in
        _columnEnd.withUnsafeMutableBufferPointer { end in
        _sectionHeight.withUnsafeMutableBufferPointer { height in
        _gapX.withUnsafeMutableBufferPointer { gapX in
        _gapY.withUnsafeMutableBufferPointer { gapY in
        _gapW.withUnsafeMutableBufferPointer { gapW in
        _gapH.withUnsafeMutableBufferPointer { gapH in
            for s in 0..<sections {
                let base = start[s], n = start[s + 1] - base
                let e = s * columns
                for c in 0..<columns { next[c] = m.itemsTop; bottoms[c] = m.itemsTop; end[e + c] = 0 }
                for i in 0..<n {
                    let g = base + i
                    let (c, best) = _shortestColumn(next, columns)
                    let hi = m.cellWidth / _sanitizedAspect(a[g])
                    x[g] = m.left + Double(c) * step
                    y[g] = best
                    w[g] = m.cellWidth
                    h[g] = hi
                    col[g] = Int32(truncatingIfNeeded: c)
                    bottoms[c] = best + hi
                    next[c] = best + hi + m.lineSpacing
                    end[e + c] += 1
                }
                // Group the section's items by column (as `_rebuildColumns`).
                var running: Int32 = 0
                for c in 0..<columns { running += end[e + c]; end[e + c] = running - end[e + c] }
                for i in 0..<n {
                    let c = e + Int(col[base + i])
                    items[base + Int(end[c])] = Int32(truncatingIfNeeded: i)
                    end[c] += 1
                }
                // Gap cell and height (as the waterfall case of `_finishSection`).
                var bottom = m.itemsTop
                var c = 0
                for j in 0..<columns {
                    if next[j] < next[c] { c = j }
                    bottom = max(bottom, bottoms[j])
                }
                var gx = 0.0, gy = 0.0, gw = 0.0, gh = 0.0
                if gap {
                    gx = m.left + Double(c) * (m.cellWidth + m.itemSpacing)
                    gy = next[c]; gw = m.cellWidth; gh = m.cellWidth
                    bottom = max(bottom, gy + gh)
                }
                gapX[s] = gx; gapY[s] = gy; gapW[s] = gw; gapH[s] = gh
                height[s] = bottom + m.bottomInset
            }
        }}}}}}}}}}}}}}}
    }

    /// Lays out items `from ..< count` of section `s`, assuming items before `from` are
    /// laid out. Grid and flow place each slot independently; justified restarts at the
    /// row holding `from`; waterfall rebuilds the column heights just before `from`.
    mutating func _layoutSection(_ s: Int, from: Int) {
        switch configuration.kind {
        case .grid, .flow: _layoutUniform(s, from: from)
        case .justified: _layoutJustified(s, from: from)
        case .waterfall: _layoutWaterfall(s, from: from)
        }
    }

    mutating func _layoutUniform(_ s: Int, from: Int) {
        let base = _sectionStart[s], n = _sectionStart[s + 1] - base
        guard from < n else { return }
        let m = _m
        let perRow = m.columns
        let stepX = m.cellWidth + m.itemSpacing, stepY = m.cellHeight + m.lineSpacing
        _x.withUnsafeMutableBufferPointer { x in
        _y.withUnsafeMutableBufferPointer { y in
        _w.withUnsafeMutableBufferPointer { w in
        _h.withUnsafeMutableBufferPointer { h in
            var row = from / perRow, col = from % perRow
            var rowY = m.itemsTop + Double(row) * stepY
            for i in from..<n {
                let g = base + i
                x[g] = m.left + Double(col) * stepX
                y[g] = rowY
                w[g] = m.cellWidth
                h[g] = m.cellHeight
                col += 1
                if col == perRow { col = 0; row += 1; rowY = m.itemsTop + Double(row) * stepY }
            }
        }}}}
    }

    mutating func _layoutJustified(_ s: Int, from: Int) {
        let base = _sectionStart[s], n = _sectionStart[s + 1] - base
        // During a full prepare the sections' row ranges are appended one by one.
        let building = s + 1 == _sectionRowStart.count
        let rowLo = _sectionRowStart[s], rowHi = building ? _rowFirst.count : _sectionRowStart[s + 1]
        // Restart at the row holding `from - 1`: a row's end was decided by looking at the
        // item after it, so the row before `from` may change too. Greedy breaking restarted
        // at a row start reproduces the full layout's rows exactly.
        let probe = from - 1
        var r = 0
        do {
            var lo = 0, hi = rowHi - rowLo
            while lo < hi {
                let mid = (lo + hi) / 2
                if Int(_rowFirst[rowLo + mid]) <= probe { lo = mid + 1 } else { hi = mid }
            }
            r = max(0, lo - 1)
        }
        let k0 = r < rowHi - rowLo ? Int(_rowFirst[rowLo + r]) : 0
        var y0 = _m.itemsTop
        if r > 0 {
            let prev = base + Int(_rowFirst[rowLo + r - 1])
            y0 = _y[prev] + _h[prev] + _m.lineSpacing
        }
        // Take the row array out of self (no copy) so the kernel can append to it while
        // writing frames; a full prepare appends at the end and copies nothing.
        var all = _rowFirst
        _rowFirst = []
        let tail = building ? [] : Array(all[rowHi...])
        all.removeSubrange((rowLo + r)...)
        _justifyKernel(base: base, from: k0, count: n, y0: y0, rows: &all)
        let delta = all.count - rowHi
        all.append(contentsOf: tail)
        _rowFirst = all
        if building {
            _sectionRowStart.append(_rowFirst.count)
        } else if delta != 0 {
            for t in (s + 1)..<_sectionRowStart.count { _sectionRowStart[t] += delta }
        }
    }

    /// Greedy justified rows over items `from ..< count` (section-relative), first row at y0.
    /// A row is closed when the next item overflows the width: with that item (scaled
    /// down) or without it (scaled up), whichever height is nearer the target by ratio.
    mutating func _justifyKernel(base: Int, from k0: Int, count n: Int, y0: Double, rows: inout [Int32]) {
        let m = _m
        let target = m.rowHeight, width = m.available, sp = m.itemSpacing
        _aspect.withUnsafeBufferPointer { a in
        _x.withUnsafeMutableBufferPointer { x in
        _y.withUnsafeMutableBufferPointer { y in
        _w.withUnsafeMutableBufferPointer { w in
        _h.withUnsafeMutableBufferPointer { h in
            var rowY = y0
            func place(_ start: Int, _ end: Int, _ height: Double) {
                var cx = m.left
                for k in start..<end {
                    let g = base + k
                    let wk = _sanitizedAspect(a[g]) * height
                    x[g] = cx; y[g] = rowY; w[g] = wk; h[g] = height
                    cx += wk + sp
                }
                rows.append(Int32(truncatingIfNeeded: start))
            }
            func close(_ start: Int, _ end: Int, _ height: Double) {
                place(start, end, height)
                rowY = rowY + height + m.lineSpacing
            }
            var start = k0, sum = 0.0, i = k0
            while i < n {
                let ai = _sanitizedAspect(a[base + i])
                if ai * target > width {
                    // Too wide alone: close what came before, then a row of its own.
                    if i > start { close(start, i, (width - Double(i - start - 1) * sp) / sum) }
                    close(i, i + 1, width / ai)
                    i += 1; start = i; sum = 0
                    continue
                }
                let k = i - start
                let newSum = sum + ai
                if newSum * target + Double(k) * sp <= width { sum = newSum; i += 1; continue }
                let shrunk = (width - Double(k) * sp) / newSum
                if k > 0 {
                    let stretched = (width - Double(k - 1) * sp) / sum
                    if shrunk <= 0 || stretched / target < target / shrunk {
                        close(start, i, stretched); start = i; sum = 0
                        continue
                    }
                }
                close(start, i + 1, shrunk)
                i += 1; start = i; sum = 0
            }
            // The last row is not stretched: target height, left-aligned.
            if start < n { place(start, n, target) }
        }}}}}
    }

    mutating func _layoutWaterfall(_ s: Int, from: Int) {
        let base = _sectionStart[s], n = _sectionStart[s + 1] - base
        let m = _m
        let columns = m.columns
        let step = m.cellWidth + m.itemSpacing
        // Column state on the stack: no allocation per section.
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * columns) { scratch in
        let next = scratch.baseAddress!, bottoms = next + columns
        _columnState(s, before: from, next: next, bottoms: bottoms)
        _aspect.withUnsafeBufferPointer { a in
        _x.withUnsafeMutableBufferPointer { x in
        _y.withUnsafeMutableBufferPointer { y in
        _w.withUnsafeMutableBufferPointer { w in
        _h.withUnsafeMutableBufferPointer { h in
        _column.withUnsafeMutableBufferPointer { col in
            let pinned = _hint.count == _aspect.count && s < _hintFirst.count
            // Pinned (a drag passes): an item stays in its column while that column is at most
            // one column width (a square tile) taller than the shortest.
            let tolerance = m.cellWidth
            for i in from..<n {
                let g = base + i
                var (c, best) = _shortestColumn(next, columns)
                if pinned {
                    let p = Int(_hint[g])
                    if p >= 0 && p < columns && p != c && next[p] - best <= tolerance {
                        c = p; best = next[p]
                        if i < _hintFirst[s] { _hintFirst[s] = i }
                    }
                }
                let hi = m.cellWidth / _sanitizedAspect(a[g])
                x[g] = m.left + Double(c) * step
                y[g] = best
                w[g] = m.cellWidth
                h[g] = hi
                col[g] = Int32(truncatingIfNeeded: c)
                next[c] = best + hi + m.lineSpacing
            }
        }}}}}}}
        _rebuildColumns(s)
    }

    /// Where the next item of each waterfall column would go (`next`) and where the
    /// column's items end (`bottoms`), given items `0 ..< before` of section `s`: found by
    /// walking back from `before` until every column is seen (usually a handful of items).
    /// Uses the kernel's own expressions, so a restart reproduces a full layout exactly.
    func _columnState(_ s: Int, before: Int, next: UnsafeMutablePointer<Double>, bottoms: UnsafeMutablePointer<Double>) {
        let base = _sectionStart[s]
        let columns = _m.columns
        let unseen = -Double.infinity
        for c in 0..<columns { bottoms[c] = unseen }
        var seen = 0
        var k = before - 1
        while k >= 0 && seen < columns {
            let g = base + k
            let c = Int(_column[g])
            if bottoms[c] == unseen {
                seen += 1
                bottoms[c] = _y[g] + _h[g]
                next[c] = _y[g] + _h[g] + _m.lineSpacing
            }
            k -= 1
        }
        for c in 0..<columns where bottoms[c] == unseen { bottoms[c] = _m.itemsTop; next[c] = _m.itemsTop }
    }

    /// Groups section `s`'s items by column (a counting sort), keeping index = y order.
    mutating func _rebuildColumns(_ s: Int) {
        let base = _sectionStart[s], n = _sectionStart[s + 1] - base
        let columns = _m.columns
        let e = s * columns
        _column.withUnsafeBufferPointer { col in
        _columnItems.withUnsafeMutableBufferPointer { items in
        _columnEnd.withUnsafeMutableBufferPointer { end in
            for c in 0..<columns { end[e + c] = 0 }
            for i in 0..<n { end[e + Int(col[base + i])] += 1 }
            var running: Int32 = 0
            for c in 0..<columns { running += end[e + c]; end[e + c] = running - end[e + c] }  // starts
            for i in 0..<n {
                let c = e + Int(col[base + i])
                items[base + Int(end[c])] = Int32(truncatingIfNeeded: i)
                end[c] += 1  // ends up as the column's end
            }
        }}}
    }

    /// Computes the gap cell (when shown) and the section height from the laid-out items.
    mutating func _finishSection(_ s: Int) {
        let base = _sectionStart[s], n = _sectionStart[s + 1] - base
        let m = _m
        var bottom = m.itemsTop  // section-relative bottom of the items (and gap cell)
        var gx = 0.0, gy = 0.0, gw = 0.0, gh = 0.0
        let gap = configuration.showsGapCells
        switch configuration.kind {
        case .grid, .flow:
            let slots = n + (gap ? 1 : 0)
            if slots > 0 {
                let lastRow = (slots - 1) / m.columns
                bottom = m.itemsTop + Double(lastRow) * (m.cellHeight + m.lineSpacing) + m.cellHeight
            }
            if gap {
                gx = m.left + Double(n % m.columns) * (m.cellWidth + m.itemSpacing)
                gy = m.itemsTop + Double(n / m.columns) * (m.cellHeight + m.lineSpacing)
                gw = m.cellWidth; gh = m.cellHeight
            }
        case .justified:
            let side = min(m.rowHeight, m.available)
            gw = side; gh = side; gx = m.left; gy = m.itemsTop
            if n > 0 {
                let last = base + n - 1
                bottom = _y[last] + _h[last]
                if gap {
                    // Beside the last row when it is an unstretched one with room, else below.
                    let after = _x[last] + _w[last] + m.itemSpacing
                    if _h[last] == m.rowHeight && after + side <= m.left + m.available {
                        gx = after; gy = _y[last]
                    } else {
                        gy = bottom + m.lineSpacing
                    }
                }
            }
            if gap { bottom = max(bottom, gy + gh) }
        case .waterfall:
            var c = 0, shortest = 0.0
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * m.columns) { scratch in
                let next = scratch.baseAddress!, bottoms = next + m.columns
                _columnState(s, before: n, next: next, bottoms: bottoms)
                for j in 0..<m.columns {
                    if next[j] < next[c] { c = j }
                    bottom = max(bottom, bottoms[j])
                }
                shortest = next[c]
            }
            if gap {
                gx = m.left + Double(c) * (m.cellWidth + m.itemSpacing)
                gy = shortest; gw = m.cellWidth; gh = m.cellWidth
                bottom = max(bottom, gy + gh)
            }
        }
        _gapX[s] = gx; _gapY[s] = gy; _gapW[s] = gw; _gapH[s] = gh
        _sectionHeight[s] = bottom + m.bottomInset
    }

    /// Section tops are running sums of heights, from section `s` on. O(sections).
    mutating func _recomputeTops(from s: Int) {
        let count = _sectionTop.count
        guard s < count else { return }
        var top = s == 0 ? 0 : _sectionTop[s - 1] + _sectionHeight[s - 1]
        for t in s..<count { _sectionTop[t] = top; top = top + _sectionHeight[t] }
    }
}

@inlinable func _resize(_ a: inout [Double], _ n: Int) {
    if a.count > n { a.removeLast(a.count - n) } else if a.count < n { a.append(contentsOf: repeatElement(0, count: n - a.count)) }
}

@inlinable func _resizeInt32(_ a: inout [Int32], _ n: Int) {
    if a.count > n { a.removeLast(a.count - n) } else if a.count < n { a.append(contentsOf: repeatElement(0, count: n - a.count)) }
}

/// The waterfall's next column: the shortest of `count` column tops, ties on the leftmost
/// (strict <). Written as selects: which column is shortest is unpredictable, and branches
/// on it mispredict.
@inline(__always)
func _shortestColumn(_ next: UnsafeMutablePointer<Double>, _ count: Int) -> (column: Int, top: Double) {
    var c = 0
    var best = next[0]
    for j in 1..<count {
        let v = next[j]
        let shorter = v < best
        best = shorter ? v : best
        c = shorter ? j : c
    }
    return (c, best)
}
