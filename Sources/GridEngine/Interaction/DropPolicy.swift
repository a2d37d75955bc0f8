/// What the host can handle, turned into proposals (F18, F29): inside the collection a
/// local drag is a move, the copy modifier makes it a copy, external data is a copy when
/// its kinds are accepted, read-only galleries or items make it forbidden.
///
///     var policy = DropPolicy()
///     policy.acceptedExternal = [[.url, .image]]   // both URL and image must load (F18)
///     policy.isReadOnly = gallery.isShared
///
/// A plain value, so the controller switches policies at run time without existentials.
public struct DropPolicy: Hashable, Sendable {
    /// The whole collection refuses drops (a read-only gallery): everything is forbidden.
    public var isReadOnly: Bool
    /// Local drags inside the collection move items.
    public var allowsMoves: Bool
    /// Local drags with `copyModifier` held copy items (several are copied in order).
    public var allowsCopies: Bool
    /// The modifier that turns an inside move into a copy (Option/Alt, as in Finder).
    public var copyModifier: KeyModifiers
    /// Representations an external item must offer to be accepted: an item is accepted
    /// when its kinds contain at least one of these combinations.
    public var acceptedExternal: [DropDataKinds]

    public init(isReadOnly: Bool = false, allowsMoves: Bool = true, allowsCopies: Bool = true,
                copyModifier: KeyModifiers = .option,
                acceptedExternal: [DropDataKinds] = [[.url, .image], [.image], [.file], [.ownItems]]) {
        self.isReadOnly = isReadOnly; self.allowsMoves = allowsMoves; self.allowsCopies = allowsCopies
        self.copyModifier = copyModifier; self.acceptedExternal = acceptedExternal
    }

    /// Whether an external item offering `kinds` can be dropped here.
    public func accepts(_ kinds: DropDataKinds) -> Bool {
        for combination in acceptedExternal where !combination.isEmpty && kinds.isSuperset(of: combination) { return true }
        return false
    }

    /// The proposal for a drag over `target`.
    /// - Parameters:
    ///   - isLocal: the drag carries this collection's own items.
    ///   - carriesReadOnly: a local drag holds an item the host marked read-only (it may be
    ///     copied out, never moved).
    ///   - targetIsReadOnly: the swap target is read-only.
    ///   - acceptedExternalCount: for external drags, how many offered items are accepted.
    ///   - outside: the outside target under the pointer, for `.outside` targets.
    public func proposal(for target: DropTarget, isLocal: Bool, carriesReadOnly: Bool = false,
                         targetIsReadOnly: Bool = false, acceptedExternalCount: Int = 0,
                         modifiers: KeyModifiers = [], outside: OutsideTarget? = nil) -> DropProposal {
        switch target {
        case .offscreen:
            return DropProposal(operation: .cancel, intent: .unspecified, target: target)
        case .outside:
            guard let outside else { return DropProposal(operation: .cancel, intent: .unspecified, target: target) }
            if !isLocal {
                return DropProposal(operation: outside.acceptsExternal && acceptedExternalCount > 0 ? .copy : .forbidden,
                                    intent: .unspecified, target: target)
            }
            let removes = outside.deletesItems && (isReadOnly || carriesReadOnly)
            return DropProposal(operation: removes ? .forbidden : outside.localOperation, intent: .unspecified, target: target)
        case .none, .insert, .gapCell, .item:
            break
        }
        let intent: DropIntent
        switch target {
        case .insert: intent = .insertAtDestinationIndexPath
        case .gapCell, .item: intent = .insertIntoDestinationIndexPath
        default: intent = .unspecified
        }
        if isReadOnly { return DropProposal(operation: .forbidden, intent: intent, target: target) }
        if !isLocal {
            return DropProposal(operation: acceptedExternalCount > 0 ? .copy : .forbidden, intent: intent, target: target)
        }
        if allowsCopies && !copyModifier.isEmpty && modifiers.isSuperset(of: copyModifier) {
            return DropProposal(operation: .copy, intent: intent, target: target)
        }
        if case .item = target, targetIsReadOnly { return DropProposal(operation: .forbidden, intent: intent, target: target) }
        if !allowsMoves || carriesReadOnly { return DropProposal(operation: .forbidden, intent: intent, target: target) }
        return DropProposal(operation: .move, intent: intent, target: target)
    }
}
