extension BuildFeature {
    /// The builder's store's name in a session's trace.
    public static let traceName = "build"
}

extension BuildAction: Traceable {
    /// A builder action holds no secret: guitars, cart lines, a checkout (which has no keys) and
    /// messages.
    public var redacted: BuildAction { self }
}

extension BuildState: Traceable {
    /// The builder holds no secret: a guitar and a checkout, which has no keys.
    public var redacted: BuildState { self }
}

extension CheckoutRequest: CustomStringConvertible {
    /// For a tap's one line: "CheckoutRequest(cart, 2 lines, code BAND10)".
    public var description: String {
        "CheckoutRequest(\(source.rawValue), \(lines.count) line\(lines.count == 1 ? "" : "s")"
            + (discount.map { ", code \($0.code))" } ?? ")")
    }
}
