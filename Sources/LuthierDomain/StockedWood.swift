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

extension StockedWood: Codable, CustomStringConvertible {
    /// How forms, addresses and the command line name a stock line: `body/blackLimba`,
    /// `fretboard/ebony` (the two columns of the `wood_stock` key).
    public var id: String { "\(kind)/\(wood)" }

    public var description: String { id }

    /// The stock line `id` names, or nil.
    public init?(id: String) {
        let parts = id.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        switch parts[0] {
        case "body":
            guard let wood = BodyWood(rawValue: String(parts[1])) else { return nil }
            self = .body(wood)
        case "fretboard":
            guard let wood = FretboardWood(rawValue: String(parts[1])) else { return nil }
            self = .fretboard(wood)
        default:
            return nil
        }
    }

    /// Every id there is, for the sentence that refuses one that is not.
    public static var allIDs: String { allCases.map(\.id).joined(separator: ", ") }

    public init(from decoder: any Decoder) throws {
        let id = try decoder.singleValueContainer().decode(String.self)
        guard let wood = StockedWood(id: id) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "'\(id)' is not a stocked wood")
            )
        }
        self = wood
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(id)
    }
}
