import LuthierFeatures

/// The parts of the kiosk page that change, like `BuildFragments` for the builder.
enum KioskFragments {
    static let showcase = "kiosk-showcase"
    static let orders = "kiosk-orders"
    static let board = "kiosk-board"
    static let counters = "kiosk-counters"

    static func all(_ output: KioskOutput, renderer: PageRenderer) -> [Fragment] {
        changed(from: nil, to: output, renderer: renderer)
    }

    /// Only the fragments whose part differs; `nil` means render everything.
    static func changed(from old: KioskOutput?, to new: KioskOutput, renderer: PageRenderer) -> [Fragment] {
        var fragments: [Fragment] = []
        func add(_ target: String, _ template: String, if differs: Bool) {
            if differs {
                fragments.append(Fragment(target: target, html: renderer.render(cached: new, template: template)))
            }
        }
        add(showcase, "fragments/kiosk-showcase", if: old?.showcase != new.showcase)
        add(orders, "fragments/kiosk-orders", if: old?.recentOrders != new.recentOrders)
        add(board, "fragments/kiosk-board", if: old?.board != new.board)
        add(
            counters, "fragments/kiosk-counters",
            if: old?.guitarsOrderedToday != new.guitarsOrderedToday || old?.guitarsInCarts != new.guitarsInCarts
                || old?.liveSessions != new.liveSessions)
        return fragments
    }
}
