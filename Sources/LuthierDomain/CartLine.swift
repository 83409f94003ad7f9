/// One configuration in the cart and how many of it.
public struct CartLine: Hashable, Sendable, Identifiable, Codable {
    public var guitar: Guitar
    public var quantity: Int

    public init(guitar: Guitar, quantity: Int) {
        self.guitar = guitar
        self.quantity = quantity
    }

    /// Stable for a configuration ("longV-sky-koa-ebony"), so that the same guitar is one line,
    /// and the id means the same thing after a restart.
    public var id: String { Self.id(for: guitar) }

    public static func id(for guitar: Guitar) -> String {
        [guitar.shape.rawValue, guitar.color.rawValue, guitar.body.rawValue, guitar.fretboard.rawValue]
            .joined(separator: "-")
    }

    public var unitPrice: Money { guitar.price }

    public var total: Money { Money(minorUnits: unitPrice.minorUnits * quantity, currency: unitPrice.currency) }
}
