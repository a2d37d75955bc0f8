/// The keys the keyboard drag and drop understands (B3).
public enum Key: UInt8, Hashable, Sendable {
    case space, enter, escape
    case up, down, left, right
    /// Moves the keyboard focus to the next item when no drag is in progress.
    case tab
}

/// A key press with its modifiers and time (seconds, the host's clock).
///
///     controller.handle(.key(KeyEvent(.space, time: 3.0)))   // pick up the focused item
public struct KeyEvent: Hashable, Sendable {
    public var key: Key
    public var modifiers: KeyModifiers
    public var time: Double

    @inlinable public init(_ key: Key, modifiers: KeyModifiers = [], time: Double) {
        self.key = key; self.modifiers = modifiers; self.time = time
    }
}
