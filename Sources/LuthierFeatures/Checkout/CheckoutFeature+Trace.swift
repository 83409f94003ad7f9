extension CheckoutFeature {
    /// A checkout's store's name in a session's trace.
    public static let traceName = "checkout"
}

extension CheckoutFeature.Action: Traceable {
    /// A placed order comes back with its access key and the session's key: both are replaced.
    public var redacted: CheckoutFeature.Action {
        guard case .orderPlaced(let order) = self else { return self }
        return .orderPlaced(order.redacted)
    }

    public var traceBytes: Int {
        guard case .orderPlaced(let order) = self else { return TraceWeight.value }
        return 2 * TraceWeight.value + TraceWeight.line * order.lines.count
    }
}

extension CheckoutState: Traceable {
    /// The order, once placed, without its keys.
    public var redacted: CheckoutState {
        var state = self
        state.order = order?.redacted
        return state
    }

    public var traceBytes: Int {
        3 * TraceWeight.value + TraceWeight.line * (checkout.lines.count + (order?.lines.count ?? 0))
    }
}
