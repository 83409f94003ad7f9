/// Why a submitted form was refused, phrased so that the customer (or the developer with curl)
/// knows which field was wrong and what would have been accepted.
public enum FieldError: Error, Equatable, Sendable {
    /// A known field carried a value outside its closed set.
    case invalidValue(field: GuitarField, value: String)
    /// A field name that this form does not have.
    case unknownField(name: String, allowed: [String])
    /// The same field sent twice, so that it is unclear which one was meant.
    case duplicateField(name: String)

    /// The field the error is about, when there is one.
    public var fieldName: String? {
        switch self {
        case .invalidValue(let field, _): field.rawValue
        case .unknownField(let name, _), .duplicateField(let name): name
        }
    }

    public var message: String {
        switch self {
        case .invalidValue(let field, let value):
            "Field '\(field.rawValue)' cannot be '\(value)'; allowed values: \(field.allowedValues.joined(separator: ", "))."
        case .unknownField(let name, let allowed):
            "Unknown field '\(name)'; allowed fields: \(allowed.joined(separator: ", "))."
        case .duplicateField(let name):
            "Field '\(name)' was sent more than once; send it once."
        }
    }
}
