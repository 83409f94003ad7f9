import LuthierDomain
import LuthierFeatures
import LuthierWeb
import ServerMachinery

/// The values a typical session shows: a customised guitar, and a cart of two lines (three guitars).
enum Fixtures {
    static let guitar = Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony)

    static let buildOutput = BuildOutput(state: BuildState(guitar: guitar))

    static let cart: Cart = {
        var cart = Cart.empty
        for guitar in [guitar, Guitar.standard, guitar] {
            cart = (try? Cart.reduce(cart, .add(guitar))) ?? cart
        }
        return cart
    }()

    static let cartOutput = CartOutput(cart: cart, discount: nil)

    /// Every fragment of the builder as a new stream gets it, rendered without the render cache.
    ///
    /// Mirrors `BuildFragments.all` (internal to LuthierWeb): the picture, description, price, the four
    /// pickers and the checkout button, with the same targets and partials.
    static func builderFragments(_ output: BuildOutput, renderer: PageRenderer) -> [Fragment] {
        var fragments = [
            Fragment(
                target: "guitar-picture", html: renderer.render(output.artwork, template: "fragments/guitar-picture")),
            Fragment(
                target: "guitar-description", html: renderer.render(output, template: "fragments/guitar-description")
            ),
            Fragment(target: "guitar-price", html: renderer.render(output, template: "fragments/guitar-price")),
        ]
        for picker in output.pickers {
            fragments.append(
                Fragment(target: "picker-\(picker.field)", html: renderer.render(picker, template: "fragments/picker"))
            )
        }
        fragments.append(
            Fragment(target: "checkout-action", html: renderer.render(output, template: "fragments/checkout-button"))
        )
        return fragments
    }
}

/// The builder template's context, field for field as `BuilderPage` in `BuildController` (internal
/// there): Mustache reads a context by reflection, so the same stored properties render the same page.
struct BuilderPageContext: Hashable, Sendable {
    let cart: CartOutput
    let output: BuildOutput
}

/// A fixture that no longer shows what the benchmark means to measure: the run stops rather than
/// timing the wrong thing.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
