import LuthierDomain

/// Everything the builder page shows, derived from the state by a pure function.
///
/// It is a plain value so that the web layer can compare two outputs part by part and re-render
/// only the fragments whose part changed, and so that templates read it without any logic.
public struct BuildOutput: Hashable, Sendable {
    public var guitar: Guitar
    public var artwork: GuitarArtwork
    public var description: String
    public var pickers: [Picker]
    public var price: String
    public var checkoutLabel: String

    public init(state: BuildState) {
        let guitar = state.guitar
        self.guitar = guitar
        artwork = GuitarArtwork(guitar: guitar)
        description = guitar.description
        pickers = [
            Picker(Shape.self, selected: guitar.shape),
            Picker(Color.self, selected: guitar.color),
            Picker(BodyWood.self, selected: guitar.body),
            Picker(FretboardWood.self, selected: guitar.fretboard),
        ]
        price = guitar.price.formatted()
        checkoutLabel = "Checkout (\(price))"
    }

    /// The picker for one field.
    public func picker(for field: GuitarField) -> Picker? {
        pickers.first { $0.field == field.rawValue }
    }
}
