import LuthierDomain
import LuthierFeatures

/// The parts of the builder page that change, each with the element it fills and the partial that
/// renders it. The full page includes the same partials, so a patch is exactly what a reload shows.
enum BuildFragments {
    static let picture = "guitar-picture"
    static let description = "guitar-description"
    static let price = "guitar-price"
    static let checkout = "checkout-action"

    static func pickerTarget(_ field: String) -> String { "picker-\(field)" }

    /// Every fragment, for a new stream or a new session.
    static func all(_ output: BuildOutput, renderer: PageRenderer) -> [Fragment] {
        changed(from: nil, to: output, renderer: renderer)
    }

    /// Only the fragments whose part of the output differs; `nil` means render everything.
    static func changed(from old: BuildOutput?, to new: BuildOutput, renderer: PageRenderer) -> [Fragment] {
        var fragments: [Fragment] = []
        if old?.artwork != new.artwork {
            fragments.append(
                Fragment(
                    target: picture, html: renderer.render(cached: new.artwork, template: "fragments/guitar-picture"))
            )
        }
        if old?.description != new.description {
            fragments.append(
                Fragment(
                    target: description, html: renderer.render(cached: new, template: "fragments/guitar-description"))
            )
        }
        if old?.price != new.price {
            fragments.append(
                Fragment(target: price, html: renderer.render(cached: new, template: "fragments/guitar-price")))
        }
        for picker in new.pickers where old?.pickers.first(where: { $0.field == picker.field }) != picker {
            fragments.append(
                Fragment(
                    target: pickerTarget(picker.field),
                    html: renderer.render(cached: picker, template: "fragments/picker"))
            )
        }
        if old?.checkoutButton != new.checkoutButton {
            fragments.append(
                Fragment(target: checkout, html: renderer.render(cached: new, template: "fragments/checkout-button"))
            )
        }
        return fragments
    }
}
