/// Builds SVG path data from absolute commands, with numbers formatted the artwork's one way.
struct SVGPath: Hashable, Sendable {
    private(set) var data = ""
    /// Whole units only: wood figure needs no tenths, and the picture stays small.
    private let wholeNumbers: Bool

    init(wholeNumbers: Bool = false) {
        self.wholeNumbers = wholeNumbers
    }

    private func number(_ value: Double) -> String {
        wholeNumbers ? value.rounded().svg : value.svg
    }

    mutating func move(_ x: Double, _ y: Double) {
        append("M\(number(x)) \(number(y))")
    }

    mutating func line(_ x: Double, _ y: Double) {
        append("L\(number(x)) \(number(y))")
    }

    mutating func curve(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x: Double, _ y: Double) {
        append(
            "C\(number(x1)) \(number(y1)) \(number(x2)) \(number(y2)) \(number(x)) \(number(y))")
    }

    /// A zero-length segment: with a round line cap it paints a dot as wide as the stroke, which keeps
    /// rows of pole pieces and wood pores to a few bytes each.
    mutating func dot(_ x: Double, _ y: Double) {
        move(x, y)
        data += "h0"
    }

    mutating func close() {
        data += "Z"
    }

    private mutating func append(_ command: String) {
        data += command
    }

    /// A closed outline through `points` made of cubic Bézier segments (Catmull-Rom tangents).
    ///
    /// Smooth points get a tangent parallel to the chord of their neighbours, so the outline flows
    /// like a routed body; sharp points get no tangent, so the outline turns to a crisp tip there.
    /// Outlines are designed on whole units, so their control points are written as whole numbers.
    static func smoothClosed(_ points: [SVGPoint]) -> SVGPath {
        var path = SVGPath(wholeNumbers: true)
        guard let first = points.first, points.count > 2 else { return path }
        let count = points.count
        func point(_ index: Int) -> SVGPoint { points[(index % count + count) % count] }
        func tangent(_ index: Int) -> (x: Double, y: Double) {
            let here = point(index)
            guard !here.sharp else { return (0, 0) }
            let previous = point(index - 1)
            let next = point(index + 1)
            return ((next.x - previous.x) / 6, (next.y - previous.y) / 6)
        }
        path.move(first.x, first.y)
        for index in 0..<count {
            let start = point(index)
            let end = point(index + 1)
            let out = tangent(index)
            let into = tangent(index + 1)
            path.curve(start.x + out.x, start.y + out.y, end.x - into.x, end.y - into.y, end.x, end.y)
        }
        path.close()
        return path
    }

    /// Adds an open smooth line through `points` as a new subpath, so that many lines share one element;
    /// with `connect`, the line continues the current subpath instead (the far side of a streak).
    mutating func appendSmoothOpen(_ points: [SVGPoint], connect: Bool = false) {
        guard let first = points.first else { return }
        if connect { line(first.x, first.y) } else { move(first.x, first.y) }
        guard points.count > 1 else { return }
        func point(_ index: Int) -> SVGPoint { points[min(max(index, 0), points.count - 1)] }
        for index in 0..<(points.count - 1) {
            let previous = point(index - 1)
            let start = point(index)
            let end = point(index + 1)
            let next = point(index + 2)
            curve(
                start.x + (end.x - previous.x) / 6, start.y + (end.y - previous.y) / 6,
                end.x - (next.x - start.x) / 6, end.y - (next.y - start.y) / 6,
                end.x, end.y)
        }
    }
}
