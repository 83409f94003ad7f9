import LuthierDomain

/// One option list on the builder (Shape, Color, Body, Fretboard) as the page shows it.
public struct Picker: Hashable, Sendable {
    /// The form field name, which is also the raw name of the option type.
    public var field: String
    public var title: String
    public var options: [PickerOption]
    /// The selected option's label, for the picker's summary (stored: templates read stored
    /// properties only).
    public var selectedLabel: String

    /// - Parameter isSoldOut: whether an option's wood is out of stock (only woods can be).
    public init<Option: GuitarOption>(
        _ type: Option.Type, selected: Option, isSoldOut: (Option) -> Bool = { _ in false }
    ) {
        field = Option.field.rawValue
        title = Option.field.title
        options = Option.allCases.map { option in
            PickerOption(
                value: option.rawValue,
                label: option.pricedName,
                inputID: "\(Option.field.rawValue)-\(option.rawValue)",
                isSelected: option == selected,
                isSoldOut: isSoldOut(option)
            )
        }
        selectedLabel = selected.pricedName
    }
}

/// One choice in a picker.
public struct PickerOption: Hashable, Sendable {
    public var value: String
    public var label: String
    /// The element id of the radio input, unique on the page so that its label can point at it.
    public var inputID: String
    public var isSelected: Bool
    /// Its wood is out of stock: still choosable, marked so that nobody is surprised at checkout.
    public var isSoldOut: Bool = false
}
