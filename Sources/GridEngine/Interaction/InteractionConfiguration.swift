/// The tunable behaviour of a ``GridController``: lift look, reorder mode and cadence,
/// gesture thresholds, animation durations, auto-scroll.
///
///     var config = InteractionConfiguration()
///     config.reorderMode = .swap            // seed 000: drag onto a tile to swap
///     config.liftStyle.scale = 1.2          // seed 002
public struct InteractionConfiguration: Hashable, Sendable {
    public var liftStyle: LiftStyle
    public var reorderMode: ReorderMode
    public var cadence: ReorderCadence
    /// Seconds a touch must rest before the item lifts (F9).
    public var longPressDuration: Double
    /// A touch that moves farther than this before the long press completes is a scroll.
    public var touchSlop: Double
    /// A mouse or pen lifts the item after moving this far with the button down.
    public var mouseLiftDistance: Double
    /// A second pointer that moves less than this between down and up is a tap (F17).
    public var tapSlop: Double
    /// Seconds of the drop animation (the preview flies to its place) and of settling.
    public var dropDuration: Double
    public var settleDuration: Double
    public var autoScroll: AutoScrollConfiguration
    /// How many committed changes undo remembers (B4).
    public var historyLimit: Int

    public init(liftStyle: LiftStyle = LiftStyle(), reorderMode: ReorderMode = .insert, cadence: ReorderCadence = .fast,
                longPressDuration: Double = 0.5, touchSlop: Double = 10, mouseLiftDistance: Double = 4, tapSlop: Double = 10,
                dropDuration: Double = 0.25, settleDuration: Double = 0.2,
                autoScroll: AutoScrollConfiguration = AutoScrollConfiguration(), historyLimit: Int = 100) {
        self.liftStyle = liftStyle; self.reorderMode = reorderMode; self.cadence = cadence
        self.longPressDuration = longPressDuration; self.touchSlop = touchSlop; self.mouseLiftDistance = mouseLiftDistance
        self.tapSlop = tapSlop; self.dropDuration = dropDuration; self.settleDuration = settleDuration
        self.autoScroll = autoScroll; self.historyLimit = historyLimit
    }
}
