/// One pointer sample: which pointer, where (view coordinates: the viewport's top-left is
/// 0,0), when (seconds, from the host's clock), what kind, and the modifiers held.
///
///     controller.handle(.pointerDown(PointerEvent(id: 1, location: p, time: 0, kind: .touch)))
public struct PointerEvent: Hashable, Sendable {
    /// Distinguishes fingers: a second finger tapping items during a drag adds them (F17).
    public var id: Int
    public var location: Point
    public var time: Double
    public var kind: PointerKind
    public var modifiers: KeyModifiers

    @inlinable public init(id: Int = 0, location: Point, time: Double, kind: PointerKind = .mouse, modifiers: KeyModifiers = []) {
        self.id = id; self.location = location; self.time = time; self.kind = kind; self.modifiers = modifiers
    }
}
