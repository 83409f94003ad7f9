extension Order {
    /// What stands in for a key in a redacted order.
    public static let redactedKey = "redacted"

    /// The order without its access key and its session's key: the form a session's trace holds,
    /// so that a trace handed to someone else (a bug report) opens no order and names no session.
    public var redacted: Order {
        var order = self
        order.accessKey = Self.redactedKey
        order.sessionKey = Self.redactedKey
        return order
    }
}
