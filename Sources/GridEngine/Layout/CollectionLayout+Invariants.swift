// Invariants as code, in the style of swift-collections' `_checkInvariants()`: tests call
// this after every prepare and update. O(n).

extension CollectionLayout {
    /// Traps (precondition) if the layout's storage is inconsistent: array lengths, section
    /// ranges and tops, frames inside their section and the content width, rows ordered
    /// and disjoint with items left to right, justified rows filling the width, waterfall
    /// columns partitioning the items in y order, gap cells after every item.
    public func checkInvariants() {
        let n = _aspect.count, sections = numberOfSections
        let m = _m
        precondition(_x.count == n && _y.count == n && _w.count == n && _h.count == n, "item array lengths")
        precondition(_sectionStart.count == sections + 1 && _sectionStart[0] == 0 && _sectionStart[sections] == n, "section starts")
        precondition(_sectionHeight.count == sections && _gapX.count == sections && _gapY.count == sections
                     && _gapW.count == sections && _gapH.count == sections, "section array lengths")
        let tolerance = 1e-9 * max(1, configuration.containerWidth)
        var top = 0.0
        for s in 0..<sections {
            precondition(_sectionStart[s] <= _sectionStart[s + 1], "section start order")
            precondition(_sectionTop[s] == top, "section tops are running sums of heights")
            precondition(_sectionHeight[s] >= m.itemsTop + m.bottomInset, "section shorter than header and insets")
            top = top + _sectionHeight[s]
            let base = _sectionStart[s], count = _sectionStart[s + 1] - base
            for k in 0..<count {
                let g = base + k
                precondition(_w[g] >= 0 && _h[g] >= 0 && _x[g].isFinite && _y[g].isFinite, "frame size")
                precondition(_y[g] >= m.itemsTop && _y[g] + _h[g] <= _sectionHeight[s] - m.bottomInset + tolerance, "item inside its section")
                precondition(_x[g] >= m.left - tolerance, "item right of the left inset")
                if case .flow = configuration.kind {} else {
                    precondition(_x[g] + _w[g] <= m.left + m.available + tolerance, "item inside the content width")
                }
            }
            if configuration.showsGapCells {
                precondition(_gapY[s] >= m.itemsTop && _gapY[s] + _gapH[s] <= _sectionHeight[s] - m.bottomInset + tolerance, "gap cell inside its section")
                let gap = Rect(x: _gapX[s], y: _gapY[s], width: _gapW[s], height: _gapH[s])
                // Cheap local check: the gap cell never covers the last item.
                if count > 0 {
                    let g = base + count - 1
                    precondition(!gap.intersects(Rect(x: _x[g], y: _y[g], width: _w[g], height: _h[g])), "gap cell over the last item")
                }
            }
            switch configuration.kind {
            case .waterfall: _checkColumns(s)
            default: _checkRows(s)
            }
        }
    }

    func _checkRows(_ s: Int) {
        let base = _sectionStart[s]
        let rows = _rowCount(section: s)
        var previousBottom = -Double.infinity
        var expectedFirst = 0
        for r in 0..<rows {
            let (lo, hi) = _rowItems(section: s, row: r)
            precondition(lo == expectedFirst && lo < hi, "rows cover the items in order")
            expectedFirst = hi
            let y = _y[base + lo], h = _h[base + lo]
            // Grid and flow compute positions by multiplication, justified by running sums:
            // compare within rounding.
            let tolerance = 1e-9 * max(1, y)
            precondition(r == 0 ? y == _m.itemsTop : abs(y - (previousBottom + _m.lineSpacing)) <= tolerance, "row spacing")
            previousBottom = y + h
            var x = _m.left
            for k in lo..<hi {
                let g = base + k
                precondition(_y[g] == y && _h[g] == h, "a row shares y and height")
                precondition(abs(_x[g] - x) <= 1e-9 * max(1, x), "items placed left to right with item spacing")
                x = _x[g] + _w[g] + _m.itemSpacing
            }
            if case .justified = configuration.kind, r < rows - 1 {
                let right = _x[base + hi - 1] + _w[base + hi - 1]
                precondition(abs(right - (_m.left + _m.available)) <= 1e-6 * max(1, _m.available), "a justified row fills the width")
            }
        }
        precondition(expectedFirst == numberOfItems(inSection: s), "rows cover every item")
    }

    func _checkColumns(_ s: Int) {
        let base = _sectionStart[s], count = numberOfItems(inSection: s)
        var total = 0
        for c in 0..<_m.columns {
            let (lo, hi) = _columnRange(section: s, column: c)
            precondition(lo == total && lo <= hi, "columns partition the section")
            total = hi
            var previous = -1
            var previousBottom = -Double.infinity
            for j in lo..<hi {
                let k = Int(_columnItems[base + j])
                let g = base + k
                precondition(k > previous && k < count && Int(_column[g]) == c, "column lists in index order")
                precondition(_x[g] == _m.left + Double(c) * (_m.cellWidth + _m.itemSpacing), "item in its column")
                precondition(previous < 0 ? _y[g] == _m.itemsTop : _y[g] == previousBottom + _m.lineSpacing, "column stacking")
                previous = k
                previousBottom = _y[g] + _h[g]
            }
        }
        precondition(total == count, "every item in a column")
    }
}
