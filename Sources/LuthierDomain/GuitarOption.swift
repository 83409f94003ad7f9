/// One choosable part of a guitar: a closed set of raw values, each with a display name and a price.
///
/// Every option type lists its cases in display order, and the first case is the default, so that
/// the pickers, the form validation and the pricing all read the same single source of truth.
public protocol GuitarOption: CaseIterable, Hashable, Sendable, Codable, RawRepresentable
where RawValue == String, AllCases == [Self] {
    /// The form field that carries this option (`shape`, `color`, `body`, `fretboard`).
    static var field: GuitarField { get }
    /// What a customer reads.
    var name: String { get }
    /// What this option adds to the base price, in US dollars.
    var price: Money { get }
}

extension GuitarOption {
    /// The option a new build starts with.
    public static var defaultOption: Self { allCases[0] }

    /// The name with its surcharge, as the pickers show it: "Long V (+$75)", or just "Casual".
    public var pricedName: String {
        price.isZero ? name : "\(name) (+\(price.formatted()))"
    }

    /// Parses a raw form value, naming the field and the allowed values when it is not one of them.
    public static func parse(_ rawValue: String) throws(FieldError) -> Self {
        guard let option = Self(rawValue: rawValue) else {
            throw FieldError.invalidValue(field: field, value: rawValue)
        }
        return option
    }
}
