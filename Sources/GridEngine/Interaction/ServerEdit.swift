/// Where a server edit puts its block: after an item, or first in a section. Items are named
/// by id, so a batch still lands where the user dropped when someone else changed the gallery
/// in between.
public enum ServerAnchor: Equatable, Sendable {
    case after(ItemID)
    case before(ItemID)
    case sectionStart(SectionID)
    case sectionEnd(SectionID)
}

/// One edit of the gallery the host sends to its server as it is: a committed change said by
/// item ids, in the order the server must apply them (one batch per commit). The engine
/// decides them (issue 11); the host only carries them.
public enum ServerEdit: Equatable, Sendable {
    /// The items, in this order, as one block at the anchor.
    case move(items: [ItemID], to: ServerAnchor)
    /// Two items exchange places.
    case swap(ItemID, ItemID)
    /// Copies of the items, as one block at the anchor (the server names the copies).
    case copy(items: [ItemID], to: ServerAnchor)
    /// The items go to the server's trash.
    case trash([ItemID])
    /// The items come back from the server's trash (before the moves that place them).
    case restore([ItemID])
    /// A new section at this index (the host adds its title; the server names it).
    case createSection(index: Int)
    /// The section to this index (in the result).
    case moveSection(SectionID, index: Int)
    /// The section goes, its items to the trash (a restore of them brings it back).
    case deleteSection(SectionID)
}
