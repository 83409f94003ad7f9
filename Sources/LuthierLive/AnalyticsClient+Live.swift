import LuthierFeatures

extension AnalyticsClient {
    /// Cart analytics in the shop's database: an append-only `analytics_events` table, and its
    /// report computed by SQL when asked (the log is small and asked for rarely).
    public static func live(store: WorkshopStore) -> AnalyticsClient {
        AnalyticsClient(
            record: { events in try await store.recordAnalytics(events) },
            report: { limit in try await store.analyticsReport(limit: limit) }
        )
    }
}
