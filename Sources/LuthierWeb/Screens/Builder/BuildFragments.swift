import LuthierDomain
import LuthierFeatures

/// The parts of the builder page that change. The full page includes the same partials, so a
/// patch is exactly what a reload shows.
enum BuildFragments {
    static let picture = "guitar-picture"
    static let description = "guitar-description"
    static let price = "guitar-price"
    static let checkout = "checkout-action"

    static func pickerTarget(_ field: String) -> String { "picker-\(field)" }

    static let table = FragmentTable<BuildOutput>([
        .fragment(picture, "fragments/guitar-picture", context: \.artwork, shows: \.artwork),
        .fragment(description, "fragments/guitar-description", announce: .polite, shows: \.description),
        .fragment(price, "fragments/guitar-price", announce: .polite, shows: \.price),
        .each("fragments/picker", in: \.pickers, target: { pickerTarget($0.field) }),
        .fragment(checkout, "fragments/checkout-button", announce: .status, shows: \.checkoutButton),
    ])
}
