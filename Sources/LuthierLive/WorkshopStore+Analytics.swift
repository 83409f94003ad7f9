import Foundation
import GRDB
import LuthierFeatures

extension WorkshopStore {
    /// Appends `events` to the analytics log in one transaction: all of them or none.
    func recordAnalytics(_ events: [AnalyticsEvent]) async throws {
        guard !events.isEmpty else { return }
        let rows = events.map { event -> StatementArguments in
            [event.action, event.configuration, Self.milliseconds(event.at), event.sessionKey]
        }
        try await writer.write { db in
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO analytics_events (action, configuration, occurred_at, session_key)
                    VALUES (?, ?, ?, ?)
                    """
            )
            for arguments in rows { try statement.execute(arguments: arguments) }
        }
    }

    /// The whole log summed up, from one consistent read: the number of events, every action
    /// with its count (most frequent first, ties by name), and the `limit` configurations most
    /// put into carts (`add` and `increment` events; ties by configuration, so the list is stable).
    func analyticsReport(limit: Int) async throws -> AnalyticsReport {
        // SQLite reads a negative LIMIT as "no limit".
        let limit = max(0, limit)
        return try await writer.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM analytics_events") ?? 0
            let actions = try Row.fetchAll(
                db,
                sql: """
                    SELECT action, COUNT(*) AS count FROM analytics_events
                    GROUP BY action ORDER BY count DESC, action
                    """
            )
            .map { AnalyticsReport.ActionCount(action: $0["action"], count: $0["count"]) }
            let mostAdded = try Row.fetchAll(
                db,
                sql: """
                    SELECT configuration, COUNT(*) AS added FROM analytics_events
                    WHERE action IN ('add', 'increment') AND configuration IS NOT NULL
                    GROUP BY configuration ORDER BY added DESC, configuration
                    LIMIT ?
                    """,
                arguments: [limit]
            )
            .map { AnalyticsReport.ConfigurationCount(configuration: $0["configuration"], added: $0["added"]) }
            return AnalyticsReport(totalEvents: total, actions: actions, mostAdded: mostAdded)
        }
    }
}
