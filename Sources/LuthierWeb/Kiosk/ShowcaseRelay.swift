import LuthierDomain
import LuthierFeatures

/// Carries the kiosk's showcase between instances: what customers build here is announced to the
/// others (the newest only, at most every `interval`: conflated by construction, so a storm of
/// changes costs a few notifications a second), and what they build there is shown here as if
/// built here.
struct ShowcaseRelay: Sendable {
    let client: ShowcaseClient
    /// The newest guitar built here not yet announced (a buffer of one).
    let builtHere: AsyncStream<Guitar>
    /// Hands a guitar built elsewhere to this instance's kiosk feed.
    let show: @Sendable (Guitar) -> Void
    let clock: any Clock<Duration>
    /// The shortest time between two announcements of this instance.
    static let interval = Duration.milliseconds(250)

    /// The relay and the input the sessions' builders feed (`onBuilderActed`).
    static func make(
        client: ShowcaseClient, clock: any Clock<Duration>, show: @escaping @Sendable (Guitar) -> Void
    ) -> (relay: ShowcaseRelay, built: @Sendable (Guitar) -> Void) {
        let (builtHere, input) = AsyncStream<Guitar>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return (ShowcaseRelay(client: client, builtHere: builtHere, show: show, clock: clock), { input.yield($0) })
    }

    /// Announces and follows until cancelled. A failed announcement is dropped: the next build
    /// brings the showcase up to date.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await guitar in client.builtElsewhere() { show(guitar) }
            }
            group.addTask {
                for await guitar in builtHere {
                    try? await client.announce(guitar)
                    do {
                        try await clock.sleep(for: Self.interval)
                    } catch {
                        return
                    }
                }
            }
        }
    }
}
