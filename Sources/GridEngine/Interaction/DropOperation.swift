/// What a drop would do, as `UIDropOperation`: the pointer shows it (a green "+" for
/// copy, a no-entry sign for forbidden) and `perform` follows it.
public enum DropOperation: UInt8, Hashable, Sendable {
    /// The drop ends the drag without effect (the pointer left every destination).
    case cancel
    /// The destination refuses the data; nothing happens on drop.
    case forbidden
    /// The data is copied to the destination; the source keeps it.
    case copy
    /// The items leave their place for the destination.
    case move
}
