import LuthierFeatures
import Synchronization

/// Analytics events kept in memory, for tests to read; can be made to fail, to prove that a
/// broken recorder never breaks the cart.
final class MemoryAnalytics: Sendable {
    private struct State {
        var events: [AnalyticsEvent] = []
        var failing = false
    }

    private let state = Mutex(State())

    var events: [AnalyticsEvent] { state.withLock { $0.events } }

    func fail(_ failing: Bool = true) { state.withLock { $0.failing = failing } }

    struct RecorderDown: Error {}

    var client: AnalyticsClient {
        AnalyticsClient(
            record: { events in
                try self.state.withLock { state in
                    if state.failing { throw RecorderDown() }
                    state.events += events
                }
            },
            report: { limit in
                let events = self.state.withLock { $0.events }
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
