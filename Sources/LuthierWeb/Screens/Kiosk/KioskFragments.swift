import LuthierFeatures

/// The parts of the kiosk page that change.
enum KioskFragments {
    static let showcase = "kiosk-showcase"
    static let orders = "kiosk-orders"
    static let board = "kiosk-board"
    static let counters = "kiosk-counters"

    static let table = FragmentTable<KioskOutput>([
        .fragment(showcase, "fragments/kiosk-showcase", shows: \.showcase),
        .fragment(orders, "fragments/kiosk-orders", shows: \.recentOrders),
        .fragment(board, "fragments/kiosk-board", shows: \.board),
        .fragment(counters, "fragments/kiosk-counters", shows: \.guitarsOrderedToday, \.guitarsInCarts, \.liveSessions),
    ])
}
