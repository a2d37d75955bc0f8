/// What a drop at the current pointer position would do: an operation, an intent and
/// the target, as `UICollectionViewDropProposal` (F18, F29). Recomputed on every move
/// through the controller's ``DropPolicy``; the host shows `operation` on the pointer.
///
///     switch controller.session?.proposal.operation {
///     case .copy?: showPlus(); case .forbidden?: showNoEntry(); default: break
///     }
public struct DropProposal: Hashable, Sendable {
    public var operation: DropOperation
    public var intent: DropIntent
    public var target: DropTarget

    @inlinable public init(operation: DropOperation, intent: DropIntent = .unspecified, target: DropTarget = .none) {
        self.operation = operation; self.intent = intent; self.target = target
    }

    /// The proposal before the pointer has been over anything.
    public static let cancel = DropProposal(operation: .cancel, intent: .unspecified, target: .offscreen)
}
