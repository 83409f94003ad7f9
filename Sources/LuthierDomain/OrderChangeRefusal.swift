/// Why the admin could not change an order, in words they can act on. Nothing was changed.
public enum OrderChangeRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case noSuchOrder(String)
    /// Only an order at wood selection can be cancelled.
    case notCancellable(String, OrderStatus)
    /// Only a pickup order ready for pickup can be marked collected.
    case notCollectable(String, OrderStatus)

    public var description: String {
        switch self {
        case .noSuchOrder(let number):
            "There is no order \(number)."
        case .notCancellable(let number, let status):
            "\(number) is at \(status.label); only an order still at \(OrderStatus.woodSelection.label) can be "
                + "cancelled, before its woods are cut."
        case .notCollectable(let number, let status):
            "\(number) is at \(status.label); only a pickup order that is \(OrderStatus.readyForPickup.label) "
                + "can be marked collected."
        }
    }
}

/// Why a discount code could not be added or expired. Nothing was changed.
public enum DiscountCodeRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case exists(String)
    case noSuchCode(String)
    case alreadyExpired(String)

    public var description: String {
        switch self {
        case .exists(let code): "code: \(code) exists already; codes are never reused, so choose another."
        case .noSuchCode(let code): "There is no discount code \(code)."
        case .alreadyExpired(let code): "\(code) has expired already."
        }
    }
}
