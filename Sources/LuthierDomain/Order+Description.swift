extension Order: CustomStringConvertible, CustomDebugStringConvertible {
    /// The order without its access key and its session's key, which must never reach a log or
    /// the stream inspector: "Order(LU-7K3M9Q, 2 guitars, woodSelection)".
    public var description: String {
        "Order(\(number), \(guitarCount) guitar\(guitarCount == 1 ? "" : "s"), \(status))"
    }

    public var debugDescription: String { description }
}

extension OrderRequest: CustomStringConvertible, CustomDebugStringConvertible {
    /// The request without its session's key.
    public var description: String {
        "OrderRequest(\(checkoutID), \(lines.count) line\(lines.count == 1 ? "" : "s"), \(shipping))"
    }

    public var debugDescription: String { description }
}
