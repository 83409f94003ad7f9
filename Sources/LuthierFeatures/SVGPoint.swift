/// A point of the artwork's 400 × 1000 drawing space.
///
/// `sharp` marks a corner: a smooth outline passes through every point with a continuous tangent,
/// except at sharp points, where it turns at once (the tips of a V, the notch between its wings).
struct SVGPoint: Hashable, Sendable {
    var x: Double
    var y: Double
    var sharp: Bool

    init(_ x: Double, _ y: Double, sharp: Bool = false) {
        self.x = x
        self.y = y
        self.sharp = sharp
    }

    /// The same point reflected across the guitar's centre line, for symmetric bodies.
    func mirrored(around axis: Double = 200) -> SVGPoint {
        SVGPoint(2 * axis - x, y, sharp: sharp)
    }

    /// `x,y` with at most one decimal, as path data and polygons want it.
    var svg: String { "\(x.svg),\(y.svg)" }
}
