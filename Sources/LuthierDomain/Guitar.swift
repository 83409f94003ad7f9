/// One configured guitar: the four choices that make it, and everything that follows from them.
public struct Guitar: Hashable, Sendable, Codable {
    public var shape: Shape
    public var color: Color
    public var body: BodyWood
    public var fretboard: FretboardWood

    public init(
        shape: Shape = .defaultOption,
        color: Color = .defaultOption,
        body: BodyWood = .defaultOption,
        fretboard: FretboardWood = .defaultOption
    ) {
        self.shape = shape
        self.color = color
        self.body = body
        self.fretboard = fretboard
    }

    /// The guitar a new customer (and "Start over") begins with.
    public static let standard = Guitar()

    /// Every guitar the shop can build: 4 × 4 × 4 × 4 = 256.
    public static var allConfigurations: [Guitar] {
        Shape.allCases.flatMap { shape in
            Color.allCases.flatMap { color in
                BodyWood.allCases.flatMap { body in
                    FretboardWood.allCases.map { fretboard in
                        Guitar(shape: shape, color: color, body: body, fretboard: fretboard)
                    }
                }
            }
        }
    }

    /// What every guitar costs before options.
    public static let basePrice = Money.dollars(2000)

    /// The sum of the four options' surcharges.
    public var additions: Money {
        shape.price + color.price + body.price + fretboard.price
    }

    public var price: Money { Self.basePrice + additions }

    /// "Natural Casual with Mahogany body and Rosewood fretboard". One string per configuration,
    /// spelled out once: every session's builder output and every cart line showing the guitar
    /// share it, where each would otherwise hold (and first format) a copy of its own.
    public var description: String { Self.descriptions[self] ?? spelledOut }

    private static let descriptions = Dictionary(
        uniqueKeysWithValues: allConfigurations.map { ($0, $0.spelledOut) })

    private var spelledOut: String {
        "\(color.name) \(shape.name) with \(body.name) body and \(fretboard.name) fretboard"
    }

    /// The raw value chosen for a field, as the form carries it.
    public func rawValue(of field: GuitarField) -> String {
        switch field {
        case .shape: shape.rawValue
        case .color: color.rawValue
        case .body: body.rawValue
        case .fretboard: fretboard.rawValue
        }
    }

    /// This guitar with the fields a change names replaced.
    public func applying(_ change: GuitarChange) -> Guitar {
        var guitar = self
        if let shape = change.shape { guitar.shape = shape }
        if let color = change.color { guitar.color = color }
        if let body = change.body { guitar.body = body }
        if let fretboard = change.fretboard { guitar.fretboard = fretboard }
        return guitar
    }
}
