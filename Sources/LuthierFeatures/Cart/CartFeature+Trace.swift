extension CartFeature {
    /// The cart's store's name in a session's trace.
    public static let traceName = "cart"
}

extension CartFeature.Action: Traceable {
    /// A cart action holds no secret: guitars, line ids, a typed code and a checkout (no keys).
    public var redacted: CartFeature.Action { self }

    public var traceBytes: Int {
        guard case .settle(let checkout) = self else { return TraceWeight.value }
        return TraceWeight.value + TraceWeight.line * checkout.lines.count
    }
}

extension CartState: Traceable {
    /// The cart holds no secret: lines, a code the customer typed, a checkout id.
    public var redacted: CartState { self }

    public var traceBytes: Int { TraceWeight.value + TraceWeight.line * cart.lines.count }
}
