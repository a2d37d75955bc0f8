/// A named drop region outside the grid, such as the gallery's trash can (F21): a frame
/// in view coordinates (the host places it, e.g. in a toolbar) and what it accepts.
/// Dropping local items on the trash removes them from the collection with a
/// shrink-into-the-can animation; external data is forbidden there.
///
///     controller.outsideTargets = [OutsideTarget(id: 1, frame: trashFrame)]
public struct OutsideTarget: Hashable, Sendable {
    public var id: Int
    /// View coordinates (the same space as pointer locations); may lie outside the viewport.
    public var frame: Rect
    /// The operation proposed for the collection's own items (the seed proposes `.copy`:
    /// the data goes to the trash, which then removes the items from the gallery).
    public var localOperation: DropOperation
    /// Whether data from other apps may be dropped here (the trash: no, F21).
    public var acceptsExternal: Bool
    /// Whether a drop here deletes the dropped local items from the collection.
    public var deletesItems: Bool

    public init(id: Int, frame: Rect, localOperation: DropOperation = .copy, acceptsExternal: Bool = false, deletesItems: Bool = true) {
        self.id = id; self.frame = frame; self.localOperation = localOperation
        self.acceptsExternal = acceptsExternal; self.deletesItems = deletesItems
    }
}

/// How an outside target should look now: targeted or not, and with which operation.
public struct OutsideTargetState: Hashable, Sendable {
    public var id: Int
    public var isTargeted: Bool
    /// The proposal's operation while targeted (`.forbidden` for external data on the trash).
    public var operation: DropOperation

    public init(id: Int, isTargeted: Bool, operation: DropOperation) {
        self.id = id; self.isTargeted = isTargeted; self.operation = operation
    }
}
