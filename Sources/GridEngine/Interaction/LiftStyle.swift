/// How a lifted item looks (F10; the seed: scaled 1.2× with a grey background) and how a
/// hovered swap target looks (F4: 0.9× at opacity 0.5).
///
///     var style = LiftStyle()
///     style.scale = 1.1; style.tint = true
///     controller.configuration.liftStyle = style
public struct LiftStyle: Hashable, Sendable {
    /// Scale of the floating preview of the lifted item(s).
    public var scale: Double
    /// Opacity of the floating preview.
    public var opacity: Double
    /// Whether the host should tint the preview (the seed's grey background).
    public var tint: Bool
    /// Opacity of the lifted item's own slot in the grid while it floats (0: an empty gap).
    public var sourceOpacity: Double
    /// Offset between stacked previews of a multi-item drag (F17).
    public var stackOffset: Double
    /// Scale and opacity of the item a swap-mode drag hovers (F4).
    public var targetScale: Double
    public var targetOpacity: Double

    public init(scale: Double = 1.2, opacity: Double = 1, tint: Bool = true, sourceOpacity: Double = 0,
                stackOffset: Double = 4, targetScale: Double = 0.9, targetOpacity: Double = 0.5) {
        self.scale = scale; self.opacity = opacity; self.tint = tint; self.sourceOpacity = sourceOpacity
        self.stackOffset = stackOffset; self.targetScale = targetScale; self.targetOpacity = targetOpacity
    }
}
