extension DragSession {
    /// Traps if the session is inconsistent: no duplicate items, local sessions past
    /// `pending` carry at least one item, external sessions carry only external items,
    /// geometry finite. Called by tests after every event (swift-collections style).
    public func checkInvariants() {
        precondition(phase != .idle, "an idle session is no session")
        for i in 0..<items.count {
            for j in (i + 1)..<items.count { precondition(items[i] != items[j], "an item dragged twice") }
        }
        switch source {
        case .local, .keyboard:
            precondition(!items.isEmpty, "a local session without items")
            precondition(externalItems.isEmpty, "a local session with external items")
        case .external:
            precondition(items.isEmpty, "an external session with local items")
            precondition(phase != .pending, "external drags start lifted")
        }
        precondition(location.x.isFinite && location.y.isFinite, "pointer location")
        precondition(grabOffset.x.isFinite && grabOffset.y.isFinite, "grab offset")
        precondition(previewSize.width >= 0 && previewSize.height >= 0, "preview size")
        if let p = _placement { precondition(p.index >= 0, "negative placement") }
        if phase == .dropping || phase == .settling { precondition(_pendingPlacement == nil, "pending placement after the drop") }
    }
}
