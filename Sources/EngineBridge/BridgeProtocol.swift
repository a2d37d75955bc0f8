// The codes of the flat-buffer protocol between the page and engine.wasm, declared once.
//
// Everything a number means on the wire is here: operations, statuses, event types, keys,
// modifiers, effects, commit kinds, cell kinds and flags. `scripts/build-wasm.sh` compiles
// this file alone (natively, with scripts/protocol-module.swift) and writes the page's
// `protocol.js` from it beside engine.wasm; the server serves it at `/js/protocol.js`.
// Keep this file free of imports: the generator compiles nothing else. The engine's own
// types are mapped to and from these codes in BridgeProtocol+Engine.swift, so GridEngine's
// raw values never reach the wire. The layout of each operation's input and answer is
// written beside its implementation (EngineBridge+*.swift).

/// Version of the flat-buffer protocol between the page and engine.wasm. Bump it when an
/// operation's input or output layout changes; the page refuses an engine of another version.
public let engineBridgeVersion: Int = 6

/// The operations of the flat command surface. Every call takes an array of `Double`s
/// and answers an array of `Double`s; the first output value is a status (0 = ok, see
/// ``BridgeStatus``). Ids travel as doubles, so they must stay below 2^53 (JavaScript's
/// safe integers).
public enum BridgeOp: Int32, CaseIterable, Sendable {
    case version = 0
    case layoutCreate = 1
    case layoutPrepare = 2
    case layoutFrames = 3
    case layoutAttributes = 4
    case layoutHitTest = 5
    case layoutDropDestination = 6
    case layoutMoveItem = 7
    case layoutInsertItem = 8
    case layoutDeleteItem = 9
    case layoutReconfigure = 10
    case layoutSetGapCells = 11
    case layoutDestroy = 12
    case diff = 20
    case snapshotApply = 21
    case controllerCreate = 40
    case controllerConfigure = 41
    case controllerEvent = 42
    case controllerTick = 43
    case controllerRender = 44
    case controllerLiveSnapshot = 45
    case controllerCommitInsertion = 46
    case controllerDeletePlaceholder = 47
    case controllerHistory = 48
    case controllerAddToDrag = 49
    case controllerCancel = 50
    case controllerScrollTarget = 51
    case controllerFocus = 52
    case controllerSnapshot = 53
    case controllerOutsideTargets = 54
    case controllerTitles = 55
    case controllerPinch = 56
    case controllerDestroy = 57
    /// Pasted data (B6): placeholders after the focused item, or at the end.
    case controllerPaste = 60
    /// The seeds' scenarios as one deterministic session (`SeedReplay.run()`): its digests,
    /// so the parity test compares the whole replay natively and in engine-test.wasm (test
    /// support only: engine.wasm answers unknownOperation).
    case seedReplay = 61
    /// Where the server must create a placeholder's item: [placeholder id] → [``BridgeAnchor``, id].
    case controllerPlaceholderDestination = 62
    case controllerLiveChanges = 70
    case controllerModelMatches = 71
    /// The whole grid read-only (a viewer) or editable again: no lift, drop, paste or undo.
    case controllerReadOnly = 73
    /// One section's items in a given order as one undoable move (issue 12: sort by capture
    /// date or name).
    case controllerArrange = 74
    /// Paging by gesture (issue 13): [handle, from offset y, direction ±1] → [x, y], one page on.
    case controllerPageStep = 75
    /// Select mode: [handle, section id, count, item ids] → effects: the items to the end of the section (one undoable move).
    case controllerMoveItems = 76
    /// Select mode: [handle, count, item ids] → effects: the items to the trash (one undoable delete).
    case controllerTrashItems = 77
    /// Sections: [handle, ``BridgeSectionEdit``, section id (add: −1), index (delete: 0; add: −1 for the end)] → effects.
    case controllerSectionEdit = 78
    /// Where a section dragged by its header would go: [handle, section id, header top y (content)] → [index] (−1: unknown).
    case controllerSectionDropIndex = 79
    /// The undo and redo history, placeholders left out, to keep across a reload.
    case controllerHistoryExport = 80
    /// A history `controllerHistoryExport` answered, given back (the same gallery loaded again).
    case controllerHistoryImport = 81
    /// Edge auto-scroll for a drag the page carries itself (a section header):
    /// [handle, dragging (0: stop), pointer y (viewport), now] → [dy].
    case controllerEdgeScroll = 82
    /// The server's whole arrangement after a reload, handed over in parts so that no call is
    /// O(n) but the last: begin [handle, item count, section count] → []; append [handle, groups
    /// of one section's next items] → []; finish [handle] → effects (a liveUpdate commit naming
    /// no stages: no diff against the old arrangement).
    case controllerLiveReplaceBegin = 85
    case controllerLiveReplaceAppend = 86
    case controllerLiveReplaceFinish = 87
}

/// What controllerSectionEdit does.
public enum BridgeSectionEdit: Int, CaseIterable, Sendable {
    case add = 0, move, delete
}

/// The first value of every answer.
public enum BridgeStatus: Int, CaseIterable, Sendable {
    case ok = 0
    case unknownOperation = -1
    /// The input is shorter than the operation needs, or a count is negative or absurd.
    case malformedInput = -2
    case unknownHandle = -3
    /// An index path or section outside the layout.
    case outOfRange = -4
    /// The diff refused its snapshots; the next values are the `DiffError` case (1–4) and the id.
    case diffRefused = -5
    /// A snapshot could not be built (duplicate ids); the next value is the id.
    case invalidSnapshot = -6
    /// A stage breaks UIKit's batch-update rules for the snapshot it applies to.
    case invalidBatch = -7
}

/// The event types of ``BridgeOp/controllerEvent`` (its second input value). Fields after it:
/// pointer down/move/up [pointer id, x, y, time, ``BridgePointerKind``, ``BridgeModifier`` bits];
/// pointer cancel [pointer id, time]; key [``BridgeKey``, modifiers, time]; scroll [x, y, time];
/// external enter [x, y, time, count, ``BridgeDropData`` bits per item]; external move [x, y,
/// modifiers, time]; external leave [time]; external drop [x, y, time]; wheel [dx, dy, time]
/// (a wheel or trackpad delta the engine applies, clamped: answered with a scroll-by effect).
/// Points are in viewport coordinates, times in seconds of the host's clock.
public enum BridgeEventType: Int, CaseIterable, Sendable {
    case pointerDown = 1, pointerMove, pointerUp, pointerCancel, key, scroll
    case externalEnter, externalMove, externalLeave, externalDrop, wheel
}

public enum BridgePointerKind: Int, CaseIterable, Sendable {
    case mouse = 0, touch, pen
}

/// Bits of a modifiers value.
public enum BridgeModifier: Int, CaseIterable, Sendable {
    case shift = 1, control = 2, option = 4, command = 8
}

/// The keys the keyboard drag and drop understands (B3).
public enum BridgeKey: Int, CaseIterable, Sendable {
    case space = 0, enter, escape, up, down, left, right, tab
}

/// Bits saying what a dropped or pasted item carries.
public enum BridgeDropData: Int, CaseIterable, Sendable {
    case ownItems = 1, url = 2, file = 4, image = 8, text = 16
}

/// The first value of a layout kind [kind, a, b]: grid [columns, aspect], flow [width,
/// height], waterfall [columns, -], justified [row height, -].
public enum BridgeLayoutKind: Int, CaseIterable, Sendable {
    case grid = 0, flow, waterfall, justified
}

public enum BridgeReorderMode: Int, CaseIterable, Sendable {
    case insert = 0, swap
}

/// How soon the preview shifts to a new destination.
public enum BridgeCadence: Int, CaseIterable, Sendable {
    case immediate = 0, fast, slow
}

/// Scroll snapping (F6–F8): none, paging, view-aligned with its limit, or the seed's custom
/// behaviour (edges: down to the item's max edge, up to its min).
public enum BridgeSnapping: Int, CaseIterable, Sendable {
    case none = 0, paging, viewAlignedAlways, viewAlignedNever, viewAlignedAutomatic, edges
}

/// What a title of ``BridgeOp/controllerTitles`` names.
public enum BridgeTitleKind: Int, CaseIterable, Sendable {
    case item = 0, section
}

/// The input of ``BridgeOp/controllerHistory``.
public enum BridgeHistoryStep: Int, CaseIterable, Sendable {
    case undo = 0, redo
}

/// Effects: [count, per effect: code, payload]. Payloads: scroll by [dy]; commit
/// [``BridgeCommitKind``, removed count, per placement: id, section id, index, aspect, version;
/// inserted (same); copied-from count, ids; copies count, ids; stage count, stages; server edit
/// count, per edit: ``BridgeServerEdit``, item count, ids, ``BridgeAnchor``, anchor id]; load
/// dropped data [placeholder id, drop item index, ``BridgeDropData`` bits]; announce [UTF-8
/// length, bytes]; drag began [count, ids]; proposal changed [``BridgeDropOperation``,
/// ``BridgeDropIntent``, ``BridgeTarget``, section, item, outside id]; drag ended
/// [``BridgeDropOperation``, count, ids]; item tapped [id].
public enum BridgeEffect: Int, CaseIterable, Sendable {
    case scrollBy = 1, commit, loadDroppedData, announce, dragBegan, proposalChanged, dragEnded, itemTapped
}

/// Why a change was committed.
public enum BridgeCommitKind: Int, CaseIterable, Sendable {
    case move = 0, swap, copy, delete, insertPlaceholders, commitPlaceholder, deletePlaceholder
    case undo, redo, liveUpdate
    case addSection, moveSection, deleteSection
}

/// An edit the page sends its server as it is (a commit's edits, in order, are one batch).
/// move and copy carry their items and an anchor; swap two items; trash and restore items.
public enum BridgeServerEdit: Int, CaseIterable, Sendable {
    case move = 0, swap, copy, trash, restore
    /// Section edits: the section id as the one "item", the index as the anchor id (anchor none).
    case createSection, moveSection, deleteSection
}

/// Where a server edit's block or a new item goes: after or before an item (the id), first or
/// last in a section (the section's id), or nowhere (swap, trash, restore: 0).
public enum BridgeAnchor: Int, CaseIterable, Sendable {
    case none = 0, after, before, sectionStart, sectionEnd
}

public enum BridgeDropOperation: Int, CaseIterable, Sendable {
    case cancel = 0, forbidden, copy, move
}

public enum BridgeDropIntent: Int, CaseIterable, Sendable {
    case unspecified = 0, insertAtDestinationIndexPath, insertIntoDestinationIndexPath
}

/// Where a proposal points.
public enum BridgeTarget: Int, CaseIterable, Sendable {
    case none = 0, insert, gapCell, item, outside, offscreen
}

/// The drag session's phase in a render answer.
public enum BridgePhase: Int, CaseIterable, Sendable {
    case idle = 0, pending, lifted, dragging, dropping, settling
}

/// What a rendered cell is.
public enum BridgeCellKind: Int, CaseIterable, Sendable {
    case item = 0, header, gap, placeholder, preview
}

/// Bits of a rendered cell's flags.
public enum BridgeCellFlag: Int, CaseIterable, Sendable {
    case lifted = 1, liftedSource = 2, hoveredTarget = 4, dropTarget = 8
    case tinted = 16, focused = 32, vanishing = 64, forbidden = 128
}
