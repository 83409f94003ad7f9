import LuthierDomain

/// One line of the workshop's wood store: the body blanks of one wood, or the fretboards of one.
///
/// A body wood and a fretboard wood can share a name (Black Limba is both), so a stock line is
/// the pair of what the wood becomes and which wood it is — exactly the `wood_stock` table's key.
public enum StockedWood: Hashable, Sendable {
    case body(BodyWood)
    case fretboard(FretboardWood)

    /// Every stock line the workshop keeps, bodies first, each in the pickers' order.
    public static var allCases: [StockedWood] {
        BodyWood.allCases.map(StockedWood.body) + FretboardWood.allCases.map(StockedWood.fretboard)
    }

    /// The two stock lines one guitar draws from.
    public static func parts(of guitar: Guitar) -> [StockedWood] {
        [.body(guitar.body), .fretboard(guitar.fretboard)]
    }

    /// The `kind` column: `body` or `fretboard`.
    public var kind: String {
        switch self {
        case .body: "body"
        case .fretboard: "fretboard"
        }
    }

    /// The `wood` column: the option's raw value, as the forms carry it (`blackLimba`).
    public var wood: String {
        switch self {
        case .body(let wood): wood.rawValue
        case .fretboard(let wood): wood.rawValue
        }
    }

    /// What a customer reads when it runs out: "Black Limba body blanks", "Ebony fretboards".
    public var stockName: String {
        switch self {
        case .body(let wood): "\(wood.name) body blanks"
        case .fretboard(let wood): "\(wood.name) fretboards"
        }
    }
}
