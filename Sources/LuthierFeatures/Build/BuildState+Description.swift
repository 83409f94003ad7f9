extension BuildState: CustomStringConvertible {
    /// The guitar and where the checkout is, for a tap's one line.
    public var description: String {
        let phase =
            switch checkoutPhase {
            case .idle: checkout.map { "checkout \($0.id)" } ?? "no checkout"
            case .loading: "checking out"
            case .failed(let message): "checkout failed: \(message)"
            }
        return "\(guitar.description), \(phase)"
    }
}
