/// Modifier keys held during an event. The copy modifier of a ``DropPolicy`` (Option/Alt
/// by default, as in Finder) turns an inside move into a copy.
///
///     let event = PointerEvent(id: 1, location: p, time: t, kind: .mouse, modifiers: [.option])
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let shift = KeyModifiers(rawValue: 1)
    public static let control = KeyModifiers(rawValue: 2)
    public static let option = KeyModifiers(rawValue: 4)
    public static let command = KeyModifiers(rawValue: 8)
}
