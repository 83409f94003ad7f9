import LuthierFeatures

/// What the analytics template shows.
struct AnalyticsPage: Sendable {
    let totalEvents: Int
    let actions: [AnalyticsReport.ActionCount]
    let mostAdded: [AnalyticsReport.ConfigurationCount]
    let isEmpty: Bool

    init(report: AnalyticsReport) {
        totalEvents = report.totalEvents
        actions = report.actions
        mostAdded = report.mostAdded
        isEmpty = report.totalEvents == 0
    }
}
