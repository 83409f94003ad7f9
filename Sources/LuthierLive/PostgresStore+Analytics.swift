import Foundation
import Logging
import LuthierFeatures
import PostgresNIO

/// The cart analytics log, append-only.
extension PostgresStore {
    /// Appends `events` in one transaction: all of them or none.
    func recordAnalytics(_ events: [AnalyticsEvent]) async throws {
        guard !events.isEmpty else { return }
        try await connection { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                for event in events {
                    try await connection.run(
                        """
                        INSERT INTO analytics_events (action, configuration, occurred_at, session_key)
                        VALUES (\(event.action), \(event.configuration), \(Self.milliseconds(event.at)), \(event.sessionKey))
                        """, self.logger)
                }
            }
        }
    }

    /// The whole log summed up from one consistent read, as the SQLite store sums it.
    func analyticsReport(limit: Int) async throws -> AnalyticsReport {
        try await read { connection in
            let total = try await connection.value(Int.self, "SELECT COUNT(*) FROM analytics_events", self.logger) ?? 0
            let actions = try await connection.rows(
                """
                SELECT action, COUNT(*) AS count FROM analytics_events
                GROUP BY action ORDER BY count DESC, action COLLATE "C"
                """, self.logger
            ).map {
                AnalyticsReport.ActionCount(
                    action: try $0["action"].decode(String.self), count: try $0["count"].decode(Int.self))
            }
            let mostAdded = try await connection.rows(
                """
                SELECT configuration, COUNT(*) AS added FROM analytics_events
                WHERE action IN ('add', 'increment') AND configuration IS NOT NULL
                GROUP BY configuration ORDER BY added DESC, configuration COLLATE "C"
                LIMIT \(max(0, limit))
                """, self.logger
            ).map {
                AnalyticsReport.ConfigurationCount(
                    configuration: try $0["configuration"].decode(String.self), added: try $0["added"].decode(Int.self))
            }
            return AnalyticsReport(totalEvents: total, actions: actions, mostAdded: mostAdded)
        }
    }
}
