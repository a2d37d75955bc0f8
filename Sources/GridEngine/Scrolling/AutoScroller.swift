/// Tuning of edge auto-scroll (F11).
///
/// The speed follows the overshoot `o` (how far the dragged cell passes an edge, or comes
/// within `edgeInset` of it) on a **capped quadratic ease-in** (issue 13: the seed's linear
/// `o × 12` reached ~3,000 pt/s a little past the edge and flew past where the user aimed):
///
///     speed(o) = maxSpeed × min(1, o / rampDistance)²      (points per second)
///
/// so a cell just past the edge creeps (20 pt past: 18 pt/s) and the speed grows smoothly to
/// `maxSpeed` at `rampDistance` points past it (the defaults: 1,000 pt/s at 160 pt). A new
/// motion also eases in over `easeInTime` seconds (the speed times `t / easeInTime`), so
/// scrolling never starts with a jump.
public struct AutoScrollConfiguration: Hashable, Sendable {
    /// Scrolling starts when the dragged cell comes this close to an edge (0: when it
    /// passes the edge, as in the seed).
    public var edgeInset: Double
    /// The speed cap, points per second (reached at `rampDistance` of overshoot).
    public var maxSpeed: Double
    /// The overshoot, in points, at which the speed reaches `maxSpeed`.
    public var rampDistance: Double
    /// Seconds over which a new motion's speed grows from 0 to its value (0: at once).
    public var easeInTime: Double
    /// Overshoot changes smaller than this keep the current speed (the seed restarts its
    /// timer only when the speed changes by more than 10), so small jitters of the pointer
    /// never restart or jerk the motion.
    public var hysteresis: Double
    /// The longest frame interval one tick may scroll for (a stalled page does not jump).
    public var maxFrameInterval: Double

    public init(edgeInset: Double = 0, maxSpeed: Double = 1000, rampDistance: Double = 160, easeInTime: Double = 0.25,
                hysteresis: Double = 10, maxFrameInterval: Double = 0.1) {
        self.edgeInset = edgeInset; self.maxSpeed = maxSpeed; self.rampDistance = rampDistance; self.easeInTime = easeInTime
        self.hysteresis = hysteresis; self.maxFrameInterval = maxFrameInterval
    }

    /// The speed (points per second, signed as the overshoot) for an overshoot.
    public func speed(overshoot o: Double) -> Double {
        guard o != 0, maxSpeed > 0 else { return 0 }
        let depth = o < 0 ? -o : o
        let t = rampDistance > 0 ? min(1, depth / rampDistance) : 1
        let v = maxSpeed * t * t
        return o < 0 ? -v : v
    }
}

/// Scrolls while a dragged cell is near or past the top or bottom edge, at a speed that
/// eases in with the overshoot up to a cap (``AutoScrollConfiguration``), frame by frame (F11).
///
///     scroller.update(dragFrame: previewInView, viewport: size, now: t)
///     let dy = scroller.step(now: t + 1.0 / 60)    // points to scroll this frame
public struct AutoScroller: Hashable, Sendable {
    public var configuration: AutoScrollConfiguration
    /// Signed overshoot the current speed was set from (negative: the top edge).
    public private(set) var overshoot: Double = 0
    /// Points per second once eased in, negative upwards; 0 when idle.
    public private(set) var velocity: Double = 0
    /// How many times the motion (re)started: a new direction or a large speed change.
    public private(set) var restarts: Int = 0
    var _lastTime: Double = 0
    /// When the current motion started (a new direction from rest), for the ease-in.
    var _startTime: Double = 0

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
        if !isActive || !sameDirection { _lastTime = now; _startTime = now }
        overshoot = o
        velocity = configuration.speed(overshoot: o)
        restarts += 1
    }

    /// The speed the motion has reached at `now` (the ease-in of a new motion applied).
    public func currentVelocity(now: Double) -> Double {
        guard isActive else { return 0 }
        let ease = configuration.easeInTime
        guard ease > 0 else { return velocity }
        return velocity * min(1, max(0, now - _startTime) / ease)
    }

    /// Points to scroll for the frame ending at `now` (0 when idle).
    public mutating func step(now: Double) -> Double {
        guard isActive else { return 0 }
        let dt = min(max(0, now - _lastTime), configuration.maxFrameInterval)
        _lastTime = now
        return currentVelocity(now: now) * dt
    }

    public mutating func stop() {
        overshoot = 0
        velocity = 0
    }
}
