/// The four form fields a build is made of, in the order the page shows them.
public enum GuitarField: String, CaseIterable, Sendable {
    case shape, color, body, fretboard

    /// The picker's heading.
    public var title: String {
        switch self {
        case .shape: "Shape"
        case .color: "Color"
        case .body: "Body"
        case .fretboard: "Fretboard"
        }
    }

    /// Every raw value the field accepts, in display order.
    public var allowedValues: [String] {
        switch self {
        case .shape: Shape.allCases.map(\.rawValue)
        case .color: Color.allCases.map(\.rawValue)
        case .body: BodyWood.allCases.map(\.rawValue)
        case .fretboard: FretboardWood.allCases.map(\.rawValue)
        }
    }
}
