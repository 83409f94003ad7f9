import LuthierDomain

/// Everything the builder page shows, derived from the state by a pure function.
///
/// It is a plain value so that the web layer can compare two outputs part by part and re-render
/// only the fragments whose part changed, and so that templates read it without any logic (they
/// see stored properties only, so every shown value is stored).
public struct BuildOutput: Hashable, Sendable {
    public var guitar: Guitar
    public var artwork: GuitarArtwork
    public var description: String
    public var pickers: [Picker]
    /// The woods the pickers mark out of stock (what a cached page is told apart by).
    public var soldOut: Set<StockedWood>
    public var price: String
    public var checkoutButton: CheckoutButton
    /// The id of the session's checkout; a new one means "go to the checkout page".
    public var checkoutID: String?
    /// The guided build's page, once the customer has begun it. Out of line: every session keeps
    /// its builder's output (three copies: the shared output, the combined one and the stream's
    /// last), and most never open the guide.
    @OutOfLine public var guide: GuideOutput?

    public init(state: BuildState) {
        let guitar = state.guitar
        self.guitar = guitar
        artwork = GuitarArtwork(guitar: guitar)
        description = guitar.description
        pickers = Picker.all(for: guitar, soldOut: state.soldOut)
        soldOut = state.soldOut
        price = guitar.price.formatted()
        checkoutButton = CheckoutButton(price: price, phase: state.checkoutPhase)
        checkoutID = state.checkout?.id
        guide = state.guide.map(GuideOutput.init(state:))
    }

    /// The picker for one field.
    public func picker(for field: GuitarField) -> Picker? {
        pickers.first { $0.field == field.rawValue }
    }
}

/// The builder's checkout button: its label, and whether it is busy.
public struct CheckoutButton: Hashable, Sendable {
    public var label: String
    public var isLoading: Bool
    /// Why the last checkout failed, shown under the button.
    public var error: String?

    init(price: String, phase: BuildState.CheckoutPhase) {
        switch phase {
        case .idle:
            label = "Checkout (\(price))"
            isLoading = false
            error = nil
        case .loading:
            label = "Checking out…"
            isLoading = true
            error = nil
        case .failed(let message):
            label = "Checkout (\(price))"
            isLoading = false
            error = message
        }
    }
}
