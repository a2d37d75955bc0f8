/// Everything the host feeds the engine besides `tick(now:)`: pointer, keyboard, scroll
/// position and external drag events. Locations are view coordinates (the viewport's
/// top-left is 0,0); times are seconds from the host's clock.
///
///     effects += controller.handle(.pointerDown(PointerEvent(location: p, time: t, kind: .touch)))
///     effects += controller.tick(now: t + 0.5)     // long press completes: lifted
public enum InteractionEvent: Hashable, Sendable {
    case pointerDown(PointerEvent)
    case pointerMove(PointerEvent)
    case pointerUp(PointerEvent)
    /// The system took the pointer away (a scroll gesture won, the window lost focus).
    case pointerCancel(id: Int, time: Double)
    case key(KeyEvent)
    /// The host's scroll position changed (fling, scroll bar): content offset.
    case scroll(offset: Point, time: Double)
    /// A wheel or trackpad delta for the engine to apply (clamped to the content); the
    /// engine answers with `.scrollBy`.
    case wheel(delta: Point, time: Double)
    /// Data from another app (or window) entered the view, one `DropDataKinds` per item.
    case externalDragEnter(items: [DropDataKinds], location: Point, time: Double)
    case externalDragMove(location: Point, modifiers: KeyModifiers, time: Double)
    case externalDragLeave(time: Double)
    case externalDrop(location: Point, time: Double)
}

extension InteractionEvent {
    /// When the event happened (seconds, the host's clock).
    public var time: Double {
        switch self {
        case .pointerDown(let e), .pointerMove(let e), .pointerUp(let e): return e.time
        case .pointerCancel(_, let t), .scroll(_, let t), .wheel(_, let t), .externalDragEnter(_, _, let t), .externalDragMove(_, _, let t),
             .externalDragLeave(let t), .externalDrop(_, let t): return t
        case .key(let k): return k.time
        }
    }
}
