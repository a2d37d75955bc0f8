/// Version of the flat-buffer protocol between the page and engine.wasm. Bump it when an
/// operation's input or output layout changes.
public let engineBridgeVersion: Int = 2

/// The operations of the flat command surface. Every call takes an array of `Double`s
/// and answers an array of `Double`s; the first output value is a status (0 = ok, see
/// ``BridgeStatus``). Ids travel as doubles, so they must stay below 2^53 (JavaScript's
/// safe integers). The layouts are described in `docs/engine-bridge.md`.
public enum BridgeOp: Int32, Sendable {
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
    /// so the parity test compares the whole replay natively and in engine.wasm.
    case seedReplay = 61
    case controllerLiveChanges = 70
    case controllerModelMatches = 71
    case controllerModelItems = 72
    /// The whole grid read-only (a viewer) or editable again: no lift, drop, paste or undo.
    case controllerReadOnly = 73
    /// One section's items in a given order as one undoable move (issue 12: sort by capture
    /// date or name).
    case controllerArrange = 74
}

/// The first value of every answer.
public enum BridgeStatus: Int, Sendable {
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
