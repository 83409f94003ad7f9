import LuthierFeatures

/// The parts of the checkout page that change, like `BuildFragments` for the builder.
enum CheckoutFragments {
    static let parts = "checkout-parts"
    static let lines = "checkout-lines"
    static let details = "checkout-details"
    static let shipping = "checkout-shipping"
    static let currency = "checkout-currency"
    static let totals = "checkout-totals"
    static let order = "checkout-order"

    /// Only the fragments whose part of the output differs; `nil` means render everything.
    static func changed(from old: CheckoutOutput?, to new: CheckoutOutput, renderer: PageRenderer) -> [Fragment] {
        var fragments: [Fragment] = []
        func add(_ target: String, _ template: String, if differs: Bool) {
            if differs {
                fragments.append(Fragment(target: target, html: renderer.render(cached: new, template: template)))
            }
        }
        if new.isCart {
            add(lines, "fragments/checkout-lines", if: old?.lines != new.lines)
        } else {
            add(parts, "fragments/checkout-parts", if: old?.parts != new.parts)
        }
        add(
            details, "fragments/checkout-details",
            if: old?.estimate != new.estimate || old?.availability != new.availability)
        add(shipping, "fragments/checkout-shipping", if: old?.shippingOptions != new.shippingOptions)
        add(currency, "fragments/checkout-currency", if: old?.currencies != new.currencies)
        add(
            totals, "fragments/checkout-totals",
            if: old?.basePrice != new.basePrice || old?.additions != new.additions || old?.discount != new.discount
                || old?.shipping != new.shipping
                || old?.grandTotal != new.grandTotal || old?.ratesNote != new.ratesNote
                || old?.deliveryTime != new.deliveryTime
        )
        add(
            order, "fragments/checkout-order",
            if: old?.orderButtonLabel != new.orderButtonLabel || old?.isOrderDisabled != new.isOrderDisabled
                || old?.notice != new.notice || old?.confirmation != new.confirmation
        )
        return fragments
    }
}
