/// What the host must do after an event or tick. The host never decides arrangement; it
/// applies these in order.
///
///     for effect in controller.handle(event) {
///         switch effect {
///         case .scrollBy(let dy): scroller.scrollTop += dy
///         case .commit(let change): dataSource.apply(change.updates); store.save(change.change)
///         case .loadDroppedData(let placeholder, let index, _): load(index, then: placeholder)
///         case .announce(let text): liveRegion.text = text
///         default: break
///         }
///     }
public enum GridEffect: Equatable, Sendable {
    /// Scroll the content by this many points (the controller's `contentOffset` already
    /// includes it).
    case scrollBy(dy: Double)
    /// The arrangement changed; animate the batch updates and persist the change.
    case commit(CommittedChange)
    /// An external item was dropped: load its data, then call `commitInsertion` or
    /// `deletePlaceholder` (F19).
    case loadDroppedData(placeholder: PlaceholderID, dropItemIndex: Int, kinds: DropDataKinds)
    /// Text for a screen reader's live region (B3).
    case announce(String)
    /// A drag session lifted these items (hook at drag begin, F10).
    case dragBegan(items: [ItemID])
    /// The proposal changed: show its operation on the pointer (copy "+", forbidden).
    case proposalChanged(DropProposal)
    /// The drag ended and its cells settled (hook after the drop, F10): the operation
    /// performed (`.cancel` / `.forbidden` when nothing happened) and the dragged items.
    case dragEnded(operation: DropOperation, items: [ItemID])
    /// A tap (no drag) on an item: open its detail view (F2).
    case itemTapped(ItemID)
}

/// Why a change was committed.
public enum CommitKind: UInt8, Hashable, Sendable {
    case move, swap, copy, delete
    case insertPlaceholders, commitPlaceholder, deletePlaceholder
    case undo, redo
    case liveUpdate
    /// Sections (issue 13): one added (the server names it), moved, or deleted with its items.
    case addSection, moveSection, deleteSection
}

/// One committed change: what happened, by id (for persistence), and as batch updates
/// valid against the snapshot shown before it (for animation; placeholders included).
public struct CommittedChange: Equatable, Sendable {
    public var kind: CommitKind
    /// The change by id, section id and index (placeholders included).
    public var change: ArrangementChange
    /// Applied in order to the snapshot before the change, these give the snapshot after.
    public var updates: [BatchUpdate]
    /// For copies: the copied items, parallel to `copies` (the new ids the engine chose).
    public var copiedFrom: [ItemID]
    public var copies: [ItemID]
    /// What the host sends its server for this change, as it is (one batch); empty when the
    /// server has nothing to do (placeholders, live updates).
    public var edits: [ServerEdit]

    public init(kind: CommitKind, change: ArrangementChange, updates: [BatchUpdate], copiedFrom: [ItemID] = [], copies: [ItemID] = [],
                edits: [ServerEdit] = []) {
        self.kind = kind; self.change = change; self.updates = updates; self.copiedFrom = copiedFrom; self.copies = copies
        self.edits = edits
    }
}
