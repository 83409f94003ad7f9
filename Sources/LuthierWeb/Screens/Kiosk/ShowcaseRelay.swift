import LuthierDomain
import LuthierFeatures
import ServerMachinery
import Synchronization

/// Carries the kiosk's showcase and counters between instances.
///
/// - What customers build here is announced to the others (the newest only, at most every
///   `interval`: conflated by construction, so a storm of changes costs a few notifications a
///   second), and what they build there is shown here as if built here.
/// - Every `countersInterval` this instance announces its counters; the kiosk shows its own plus
///   the latest each other instance announced within `countersFreshFor` (an instance that stopped
///   announcing, stopped or cut off, drops out of the sum).
final class ShowcaseRelay: ConditionWatched {
    let client: ShowcaseClient
    /// The newest guitar built here not yet announced (a buffer of one).
    let builtHere: AsyncStream<Guitar>
    /// Hands a guitar built elsewhere to this instance's kiosk feed.
    let show: @Sendable (Guitar) -> Void
    /// This instance's own counters, as the kiosk reads them.
    let localCounters: @Sendable () -> KioskCounters
    let clock: any Clock<Duration>
    /// Time on `clock` since the relay was made.
    private let elapsed: @Sendable () -> Duration
    /// The other instances' counters, with when each was heard.
    private let heard = Mutex(Heard())

    private struct Heard {
        var instances: [String: (counters: KioskCounters, at: Duration)] = [:]
        /// How many announcements of the others have been taken: what a caller may await.
        var announcements = 0
        var waiters = ConditionWaiters<Int>()
    }

    /// The shortest time between two announcements of this instance's builds.
    static let interval = Duration.milliseconds(250)
    /// How often each instance announces its counters (the kiosk's own tick).
    static let countersInterval = Duration.seconds(5)
    /// How long an instance's announced counters count.
    static let countersFreshFor = Duration.seconds(15)

    /// - Parameters:
    ///   - builtHere: the guitars built here, the newest only (`KioskFeed.builderInput()`).
    ///   - show: hands a guitar built elsewhere to this instance's kiosk feed.
    ///   - localCounters: this instance's own counters.
    init(
        client: ShowcaseClient, builtHere: AsyncStream<Guitar>, show: @escaping @Sendable (Guitar) -> Void,
        localCounters: @escaping @Sendable () -> KioskCounters, clock: any Clock<Duration>
    ) {
        self.client = client
        self.builtHere = builtHere
        self.show = show
        self.localCounters = localCounters
        self.clock = clock
        elapsed = stopwatch(on: clock)
    }

    /// The counters the kiosk shows: this instance's and every other's still fresh.
    func counters() -> KioskCounters {
        let now = elapsed()
        return heard.withLock { heard in
            heard.instances.values.filter { now - $0.at <= Self.countersFreshFor }.reduce(into: localCounters()) {
                sum, entry in
                sum.guitarsInCarts += entry.counters.guitarsInCarts
                sum.liveSessions += entry.counters.liveSessions
            }
        }
    }

    /// Announces and follows until cancelled. A failed announcement is dropped: the next one
    /// brings the others up to date.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await guitar in client.builtElsewhere() { show(guitar) }
            }
            group.addTask { [self] in
                for await told in client.countersElsewhere() {
                    let at = elapsed()
                    let met = heard.withLock { heard in
                        heard.instances[told.instance] = (told.counters, at)
                        heard.announcements += 1
                        return heard.waiters.satisfied(by: heard.announcements)
                    }
                    for waiter in met { waiter.resume(returning: true) }
                }
            }
            group.addTask { [self] in
                for await guitar in builtHere {
                    try? await client.announce(guitar)
                    guard (try? await clock.sleep(for: Self.interval)) != nil else { return }
                }
            }
            group.addTask { [self] in
                while (try? await clock.sleep(for: Self.countersInterval)) != nil {
                    try? await client.announceCounters(localCounters())
                }
            }
        }
    }
}

extension ShowcaseRelay {
    /// Lets a caller await the others' announcements taken (`waitUntil`), as a test does.
    func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Int>, Int) -> Result) -> Result {
        heard.withLock { body(&$0.waiters, $0.announcements) }
    }
}
