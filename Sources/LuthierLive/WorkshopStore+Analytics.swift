import Foundation
import LuthierFeatures
import SQLMachinery

/// The cart analytics log, append-only; its report computed by SQL when asked (the log is small
/// and asked for rarely).
extension WorkshopStore {
    /// Appends `events` to the analytics log in one transaction: all of them or none. Appending
    /// judges nothing, so it takes no lock.
    func recordAnalytics(_ events: [AnalyticsEvent]) async throws {
        guard !events.isEmpty else { return }
        try await database.write(lock: nil) { connection in
            for event in events {
                try await connection.run(
                    """
                    INSERT INTO analytics_events (action, configuration, occurred_at, session_key)
                    VALUES (\(event.action), \(event.configuration), \(Self.milliseconds(event.at)), \(event.sessionKey))
                    """)
            }
        }
    }

    /// The whole log summed up, from one consistent read: the number of events, every action
    /// with its count (most frequent first, ties by name), and the `limit` configurations most
    /// put into carts (`add` and `increment` events; ties by configuration, so the list is stable).
    func analyticsReport(limit: Int) async throws -> AnalyticsReport {
        try await database.read { connection in
            let byteOrder = connection.dialect.byteOrder
            let total = try await connection.value("SELECT COUNT(*) FROM analytics_events", as: Int.self) ?? 0
            let actions = try await connection.rows(
                """
                SELECT action, COUNT(*) AS count FROM analytics_events
                GROUP BY action ORDER BY count DESC, action COLLATE \(sql: byteOrder)
                """
            ).map { AnalyticsReport.ActionCount(action: try $0["action"], count: try $0["count"]) }
            let mostAdded = try await connection.rows(
                """
                SELECT configuration, COUNT(*) AS added FROM analytics_events
                WHERE action IN ('add', 'increment') AND configuration IS NOT NULL
                GROUP BY configuration ORDER BY added DESC, configuration COLLATE \(sql: byteOrder)
                LIMIT \(max(0, limit))
                """
            ).map { AnalyticsReport.ConfigurationCount(configuration: try $0["configuration"], added: try $0["added"]) }
            return AnalyticsReport(totalEvents: total, actions: actions, mostAdded: mostAdded)
        }
    }
}
