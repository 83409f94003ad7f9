/// A partial edit of a build: any subset of the four fields, as one form post carries it.
public struct GuitarChange: Hashable, Sendable, Codable {
    public var shape: Shape?
    public var color: Color?
    public var body: BodyWood?
    public var fretboard: FretboardWood?

    public init(shape: Shape? = nil, color: Color? = nil, body: BodyWood? = nil, fretboard: FretboardWood? = nil) {
        self.shape = shape
        self.color = color
        self.body = body
        self.fretboard = fretboard
    }

    public var isEmpty: Bool { shape == nil && color == nil && body == nil && fretboard == nil }

    /// Reads decoded form fields. Validation is all-or-nothing: any unknown, repeated or invalid
    /// field refuses the whole change, so that a bad post never half-applies.
    public init(fields: [(name: String, value: String)]) throws(FieldError) {
        self.init()
        var seen: Set<String> = []
        for (name, value) in fields {
            guard seen.insert(name).inserted else { throw .duplicateField(name: name) }
            guard let field = GuitarField(rawValue: name) else {
                throw .unknownField(name: name, allowed: GuitarField.allCases.map(\.rawValue))
            }
            switch field {
            case .shape: shape = try Shape.parse(value)
            case .color: color = try Color.parse(value)
            case .body: body = try BodyWood.parse(value)
            case .fretboard: fretboard = try FretboardWood.parse(value)
            }
        }
    }
}
