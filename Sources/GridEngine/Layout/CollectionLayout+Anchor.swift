// Changing density (pinch, F22) while keeping the item under the fingers in place.

extension CollectionLayout {
    /// Switches to `kind` (e.g. a new column count or row height) and returns the content
    /// offset that keeps the item under `anchor` (in view coordinates) at the same place
    /// on screen, given the current `contentOffset`. The result is not clamped to the
    /// scrollable range; the host clamps it. O(n) for the new layout plus O(log n).
    ///
    ///     let offset = layout.reconfigure(kind: .grid(columns: 3), keeping: pinchCentre,
    ///                                     contentOffset: scrollView.offset)
    public mutating func reconfigure(kind: LayoutKind, keeping anchor: Point, contentOffset: Point) -> Point {
        var next = self
        var config = configuration
        config.kind = kind
        next.reconfigure(config)
        let offset = anchoredContentOffset(anchor: anchor, contentOffset: contentOffset, in: next)
        self = next
        return offset
    }

    /// The content offset for `newLayout` (same items, another configuration) that keeps
    /// what is under `anchor` in this layout under it on screen. The anchor item is the
    /// item under the point, else the item nearest the drop position there; the point's
    /// relative position inside the item's frame is kept. Only y changes (the content
    /// scrolls vertically). O(log n).
    public func anchoredContentOffset(anchor: Point, contentOffset: Point, in newLayout: CollectionLayout) -> Point {
        precondition(newLayout._sectionStart == _sectionStart, "the new layout holds other items")
        let p = Point(x: anchor.x + contentOffset.x, y: anchor.y + contentOffset.y)
        var target: IndexPath? = indexPath(at: p)
        if target == nil, let d = dropDestination(at: p) {
            switch d {
            case .into(let ip): target = ip
            case .insert(let ip):
                let n = numberOfItems(inSection: ip.section)
                if n > 0 { target = IndexPath(item: min(ip.item, n - 1), section: ip.section) }
                else {
                    // An empty section: keep its top where it was.
                    let dy = newLayout._sectionTop[ip.section] - _sectionTop[ip.section]
                    return Point(x: contentOffset.x, y: contentOffset.y + dy)
                }
            }
        }
        guard let ip = target, let old = frame(of: ip), let new = newLayout.frame(of: ip) else {
            return contentOffset
        }
        let v = old.height > 0 ? (p.y - old.minY) / old.height : 0
        let newY = new.minY + v * new.height
        return Point(x: contentOffset.x, y: newY - anchor.y)
    }
}
