/// Tuning of edge auto-scroll (F11).
public struct AutoScrollConfiguration: Hashable, Sendable {
    /// Scrolling starts when the dragged cell comes this close to an edge (0: when it
    /// passes the edge, as in the seed).
    public var edgeInset: Double
    /// Points per second per point of overshoot. The seed scrolls overshoot / 5 points per
    /// frame at 60 frames per second: 12.
    public var gain: Double
    /// Overshoot changes smaller than this keep the current speed (the seed restarts its
    /// timer only when the speed changes by more than 10), so small jitters of the pointer
    /// never restart or jerk the motion.
    public var hysteresis: Double
    /// The longest frame interval one tick may scroll for (a stalled page does not jump).
    public var maxFrameInterval: Double

    public init(edgeInset: Double = 0, gain: Double = 12, hysteresis: Double = 10, maxFrameInterval: Double = 0.1) {
        self.edgeInset = edgeInset; self.gain = gain; self.hysteresis = hysteresis; self.maxFrameInterval = maxFrameInterval
    }
}

/// Scrolls while a dragged cell is near or past the top or bottom edge, at a speed
/// proportional to the overshoot, frame by frame (F11).
///
///     scroller.update(dragFrame: previewInView, viewport: size, now: t)
///     let dy = scroller.step(now: t + 1.0 / 60)    // points to scroll this frame
public struct AutoScroller: Hashable, Sendable {
    public var configuration: AutoScrollConfiguration
    /// Signed overshoot the current speed was set from (negative: the top edge).
    public private(set) var overshoot: Double = 0
    /// Points per second, negative upwards; 0 when idle.
    public private(set) var velocity: Double = 0
    /// How many times the motion (re)started: a new direction or a large speed change.
    public private(set) var restarts: Int = 0
    var _lastTime: Double = 0

    public init(configuration: AutoScrollConfiguration = AutoScrollConfiguration()) { self.configuration = configuration }

    public var isActive: Bool { velocity != 0 }

    /// The overshoot of `dragFrame` (view coordinates) past the edge zones of a viewport.
    public func overshoot(of dragFrame: Rect, viewport: Size) -> Double {
        let inset = max(0, configuration.edgeInset)
        let top = inset - dragFrame.minY
        if top > 0 { return -top }
        let bottom = dragFrame.maxY - (viewport.height - inset)
        if bottom > 0 { return bottom }
        return 0
    }

    /// Re-evaluates the dragged cell's position. Keeps the current speed unless the
    /// direction changed or the overshoot moved by more than the hysteresis.
    public mutating func update(dragFrame: Rect, viewport: Size, now: Double) {
        let o = overshoot(of: dragFrame, viewport: viewport)
        if o == 0 { stop(); return }
        let sameDirection = (o < 0) == (overshoot < 0)
        let change = o - overshoot
        if isActive && sameDirection && change <= configuration.hysteresis && -change <= configuration.hysteresis { return }
        if !isActive { _lastTime = now }
        overshoot = o
        velocity = o * configuration.gain
        restarts += 1
    }

    /// Points to scroll for the frame ending at `now` (0 when idle).
    public mutating func step(now: Double) -> Double {
        guard isActive else { return 0 }
        let dt = min(max(0, now - _lastTime), configuration.maxFrameInterval)
        _lastTime = now
        return velocity * dt
    }

    public mutating func stop() {
        overshoot = 0
        velocity = 0
    }
}
