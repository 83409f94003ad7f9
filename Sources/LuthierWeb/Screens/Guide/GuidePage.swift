import LuthierFeatures

/// What the guide template shows.
struct GuidePage: Sendable {
    struct Key: Hashable, Sendable {
        let cart: CartOutput
        let guide: GuideOutput
    }

    let cart: CartOutput
    let guide: GuideOutput

    var key: Key { Key(cart: cart, guide: guide) }
}
