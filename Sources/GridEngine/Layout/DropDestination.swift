/// Where a drop at a point would land, as the layout sees it.
///
///     switch layout.dropDestination(at: p) {
///     case .insert(let at)?: shiftAside(at)     // between items; at.item == count: end of section
///     case .into(let target)?: highlight(target) // onto an item (swap, or drop into)
///     case nil: break                            // outside all sections
///     }
public enum DropDestination: Hashable, Sendable {
    /// Insert before the item now at `at` (others shift aside); `at.item` may equal the
    /// section's item count, meaning the end of the section (also the gap cell's answer).
    case insert(at: IndexPath)
    /// Onto the central area of an existing item.
    case into(IndexPath)
}
