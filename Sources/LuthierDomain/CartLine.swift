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

    /// The guitar a line id ("longV-sky-koa-ebony") names, or nil if it is not four known options
    /// written as ``id(for:)`` writes them.
    public static func guitar(id: some StringProtocol) -> Guitar? {
        let id = String(id)
        let parts = id.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4,
            let shape = Shape(rawValue: parts[0]), let color = Color(rawValue: parts[1]),
            let body = BodyWood(rawValue: parts[2]), let fretboard = FretboardWood(rawValue: parts[3])
        else { return nil }
        let guitar = Guitar(shape: shape, color: color, body: body, fretboard: fretboard)
        return Self.id(for: guitar) == id ? guitar : nil
    }

    public var unitPrice: Money { guitar.price }

    public var total: Money { Money(minorUnits: unitPrice.minorUnits * quantity, currency: unitPrice.currency) }
}
