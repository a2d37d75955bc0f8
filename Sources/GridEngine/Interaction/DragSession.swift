/// One drag in progress: where it came from, what it carries, where the pointer is, the
/// current proposal and the phase (see ``DragPhase``). Owned and advanced by a
/// ``GridController``; the host reads it (e.g. to show the proposal on the pointer).
///
///     if let session = controller.session, session.phase == .dragging {
///         cursor = session.proposal.operation == .forbidden ? .notAllowed : .grabbing
///     }
public struct DragSession: Hashable, Sendable {
    /// Where the dragged data comes from.
    public enum Source: UInt8, Hashable, Sendable {
        /// This collection's own items, dragged with a pointer.
        case local
        /// Data from another app or window (URLs, files, images).
        case external
        /// This collection's own items, moved with the keyboard (B3).
        case keyboard
    }

    public internal(set) var phase: DragPhase
    public internal(set) var source: Source
    public internal(set) var pointerID: Int
    public internal(set) var pointerKind: PointerKind
    /// Local items being dragged, the one under the pointer first, then those added by
    /// taps in the order tapped (F17).
    public internal(set) var items: [ItemID]
    /// For external drags: the kinds each offered item carries.
    public internal(set) var externalItems: [DropDataKinds]
    public internal(set) var startLocation: Point
    /// The pointer, in view coordinates.
    public internal(set) var location: Point
    public internal(set) var startTime: Double
    /// When the current phase began.
    public internal(set) var phaseStartTime: Double
    /// From the lifted cell's top-left to the pointer (content units, unscaled).
    public internal(set) var grabOffset: Point
    /// The lifted cell's unscaled size.
    public internal(set) var previewSize: Size
    public internal(set) var modifiers: KeyModifiers
    public internal(set) var proposal: DropProposal
    /// After the drop: what was performed (`.cancel` / `.forbidden` when nothing was).
    public internal(set) var outcome: DropOperation

    /// Where the dragged block is shown (rest coordinates: indices among the items that
    /// are not dragged), and a placement waiting for the cadence.
    var _placement: _Placement?
    var _pendingPlacement: _Placement?
    var _pendingSince: Double = 0
    /// Where the pointer was (content coordinates) when the preview last reflowed: the
    /// block holds its place until the pointer has moved `GridController._holdDistance`
    /// from there (hysteresis: the reflow moves other cells under a pointer at rest, which
    /// must not move the block again; the drop lands where the block shows).
    var _reflowedAt: Point?
    /// Whether the live preview shows a copy: the originals stay in place and the
    /// copies' slots open at the destination (the proposal's operation is copy).
    var _copyPreview = false
    /// Whether the pointer has placed the block since the lift (`_retarget` applied a
    /// placement): a copy preview's slots show only then. Before, nothing moved — a copy
    /// shows the collection as it is, exactly as a move does at lift, instead of opening a
    /// slot beside the original that reflows the layout under a pointer which never asked
    /// for it (in a waterfall that slot can cover the pointer's whole way to its target,
    /// and a pointer on the slot or on the original means "stay": it never followed).
    var _placedByPointer = false
    /// The ids the copies will have, parallel to `items` once a copy preview was shown
    /// (the slots on screen carry them, and the drop commits them).
    var _copyIDs: [ItemID] = []
    /// The drop animation: the preview flies from → to (content coordinates).
    var _flyFrom = Rect.zero
    var _flyTo = Rect.zero
    var _flyToScale = 1.0
    var _flyToOpacity = 1.0
    var _vanishing = false
    /// Second pointers that went down on an item during the drag: taps add the item.
    var _taps: [_Tap] = []

    init(source: Source, phase: DragPhase, pointerID: Int, pointerKind: PointerKind, location: Point, time: Double) {
        self.source = source; self.phase = phase; self.pointerID = pointerID; self.pointerKind = pointerKind
        self.items = []; self.externalItems = []
        self.startLocation = location; self.location = location
        self.startTime = time; self.phaseStartTime = time
        self.grabOffset = .zero; self.previewSize = .zero; self.modifiers = []
        self.proposal = .cancel; self.outcome = .cancel
    }

    /// The item under the pointer (the first dragged item), if any.
    public var primaryItem: ItemID? { items.first }

    /// Whether the session is past `pending` and not yet dropped.
    public var isDragging: Bool { phase == .lifted || phase == .dragging }
}

/// Where a dragged block sits: a section by id and an index among its non-dragged items.
struct _Placement: Hashable, Sendable {
    var section: SectionID
    var index: Int
}

struct _Tap: Hashable, Sendable {
    var pointerID: Int
    var location: Point
    var item: ItemID
}
