import LuthierFeatures

/// The parts of the kiosk page that change.
enum KioskFragments {
    static let showcase = "kiosk-showcase"
    static let orders = "kiosk-orders"
    static let board = "kiosk-board"
    static let counters = "kiosk-counters"

    static let table = FragmentTable<KioskOutput>([
        .fragment(showcase, "fragments/kiosk-showcase", shows: \.showcase),
        .list(
            orders, "fragments/kiosk-orders", context: { $0 }, frame: \.recentOrders.isEmpty, items: \.recentOrders,
            item: "fragments/kiosk-order", id: { "kiosk-order-\($0.key)" }, itemContext: { $0 }),
        .list(
            board, "fragments/kiosk-board", context: { $0 }, frame: { _ in true }, items: \.board,
            item: "fragments/kiosk-column", id: { "board-\($0.id)" }, itemContext: { $0 }),
        .fragment(counters, "fragments/kiosk-counters", shows: \.guitarsOrderedToday, \.guitarsInCarts, \.liveSessions),
    ])
}
