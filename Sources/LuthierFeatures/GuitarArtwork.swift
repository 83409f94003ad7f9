import LuthierDomain

/// Stand-in until the drawing lands (the artwork helper replaces this file).
public struct GuitarArtwork: Hashable, Sendable {
    public let svg: String

    public init(guitar: Guitar) {
        svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 400 1000\" role=\"img\" aria-label=\"\(guitar.description)\" data-shape=\"\(guitar.shape.rawValue)\" data-color=\"\(guitar.color.rawValue)\" data-body=\"\(guitar.body.rawValue)\" data-fretboard=\"\(guitar.fretboard.rawValue)\"></svg>"
    }
}
