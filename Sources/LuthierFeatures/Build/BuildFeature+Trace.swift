extension BuildFeature {
    /// The builder's store's name in a session's trace.
    public static let traceName = "build"
}

extension BuildAction: Traceable {
    /// A builder action holds no secret: guitars, cart lines, a checkout (which has no keys) and
    /// messages.
    public var redacted: BuildAction { self }

    public var traceBytes: Int {
        switch self {
        case .checkoutRequested(let request): TraceWeight.value + TraceWeight.line * request.lines.count
        case .checkoutFinished(let checkout): TraceWeight.value + TraceWeight.line * checkout.lines.count
        default: TraceWeight.value
        }
    }
}

extension BuildState: Traceable {
    /// The builder holds no secret: a guitar and a checkout, which has no keys.
    public var redacted: BuildState { self }

    public var traceBytes: Int {
        2 * TraceWeight.value + TraceWeight.line * (checkout?.lines.count ?? 0) + (guide == nil ? 0 : TraceWeight.value)
    }
}

extension CheckoutRequest: CustomStringConvertible {
    /// For a tap's one line: "CheckoutRequest(cart, 2 lines, code BAND10)".
    public var description: String {
        "CheckoutRequest(\(source.rawValue), \(lines.count) line\(lines.count == 1 ? "" : "s")"
            + (discount.map { ", code \($0.code))" } ?? ")")
    }
}
