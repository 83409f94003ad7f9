import LuthierFeatures
import Synchronization
import TestSupport

/// Analytics events kept in memory, for tests to read; can be made to fail, to prove that a
/// broken recorder never breaks the cart.
final class MemoryAnalytics: Sendable {
    private let recorded = Recording<AnalyticsEvent>()
    private let failing = Mutex(false)

    var events: [AnalyticsEvent] { recorded.values }

    func fail(_ failing: Bool = true) { self.failing.withLock { $0 = failing } }

    /// True once the recorded events meet `condition`, told as each batch is recorded (analytics
    /// are recorded after the answer, off the post's path); false after `limit`.
    func until(within limit: Duration = .seconds(5), _ condition: @escaping @Sendable ([AnalyticsEvent]) -> Bool) async
        -> Bool
    {
        await recorded.until(within: limit, condition)
    }

    struct RecorderDown: Error {}

    var client: AnalyticsClient {
        AnalyticsClient(
            record: { events in
                if self.failing.withLock({ $0 }) { throw RecorderDown() }
                self.recorded.append(contentsOf: events)
            },
            report: { limit in
                let events = self.recorded.values
                var actions: [String: Int] = [:]
                var added: [String: Int] = [:]
                for event in events {
                    actions[event.action, default: 0] += 1
                    if event.action == "add" || event.action == "increment", let configuration = event.configuration {
                        added[configuration, default: 0] += 1
                    }
                }
                return AnalyticsReport(
                    totalEvents: events.count,
                    actions: actions.map { AnalyticsReport.ActionCount(action: $0.key, count: $0.value) }
                        .sorted { ($1.count, $0.action) < ($0.count, $1.action) },
                    mostAdded: added.map { AnalyticsReport.ConfigurationCount(configuration: $0.key, added: $0.value) }
                        .sorted { ($1.added, $0.configuration) < ($0.added, $1.configuration) }
                        .prefix(limit).map { $0 }
                )
            }
        )
    }
}
