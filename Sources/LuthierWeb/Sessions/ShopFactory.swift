import LuthierDomain
import LuthierFeatures
import Synchronization

/// Makes a session's shop (`ShopSession`) from a snapshot: when the session is created or
/// restored, and again when another instance saved the session and its stored snapshot replaces
/// the shop held here. One per registry, shared by its sessions, so that what every shop is made
/// with is held once rather than by each session.
final class ShopFactory: Sendable {
    let environment: LuthierEnvironment
    let discounts: DiscountBook
    let analytics: AnalyticsQueue
    let onBuilderActed: @Sendable (Guitar) -> Void
    /// The woods out of stock now, which every new shop's builder marks.
    let soldOut = Mutex<Set<StockedWood>>([])

    init(
        environment: LuthierEnvironment, discounts: DiscountBook, analytics: AnalyticsQueue,
        onBuilderActed: @escaping @Sendable (Guitar) -> Void
    ) {
        self.environment = environment
        self.discounts = discounts
        self.analytics = analytics
        self.onBuilderActed = onBuilderActed
    }

    /// Where sessions are stored.
    var store: SessionStore { environment.sessions }

    /// The shop of `snapshot`, recording to `taps` (the session's own recorder, kept across shops).
    func shop(of snapshot: SessionSnapshot, taps: TapRecorder?) -> ShopSession {
        var environment = environment
        environment.taps = taps
        return ShopSession(
            snapshot: snapshot, environment: environment, discounts: discounts,
            soldOut: soldOut.withLock { $0 }, analytics: analytics, onBuilderActed: onBuilderActed)
    }
}
