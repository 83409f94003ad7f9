import Foundation

/// Where cart analytics go: an append-only log of cart actions, and the summary the shop reads.
public struct AnalyticsClient: Sendable {
    /// Appends events; never called on the cart's own path, so a failure here loses only analytics.
    public var record: @Sendable (_ events: [AnalyticsEvent]) async throws -> Void
    /// Counts per action and the most-added configurations, at most `limit` of them.
    public var report: @Sendable (_ limit: Int) async throws -> AnalyticsReport

    public init(
        record: @escaping @Sendable (_ events: [AnalyticsEvent]) async throws -> Void,
        report: @escaping @Sendable (_ limit: Int) async throws -> AnalyticsReport
    ) {
        self.record = record
        self.report = report
    }
}

/// One applied cart action, anonymised: no cookie, no order key, only a per-session random key.
public struct AnalyticsEvent: Hashable, Sendable {
    /// `add`, `increment`, `decrement`, `remove` or `clear`.
    public var action: String
    /// The line's configuration ("longV-sky-koa-ebony"); nil for `clear`.
    public var configuration: String?
    public var at: Date
    public var sessionKey: String

    public init(action: String, configuration: String?, at: Date, sessionKey: String) {
        self.action = action
        self.configuration = configuration
        self.at = at
        self.sessionKey = sessionKey
    }
}

/// What `luthier analytics` and `/admin/analytics` show.
public struct AnalyticsReport: Hashable, Sendable {
    public struct ActionCount: Hashable, Sendable {
        public var action: String
        public var count: Int

        public init(action: String, count: Int) {
            self.action = action
            self.count = count
        }
    }

    public struct ConfigurationCount: Hashable, Sendable {
        public var configuration: String
        /// Guitars of it put in carts: `add` and `increment` events.
        public var added: Int

        public init(configuration: String, added: Int) {
            self.configuration = configuration
            self.added = added
        }
    }

    public var totalEvents: Int
    /// Every action, most frequent first.
    public var actions: [ActionCount]
    public var mostAdded: [ConfigurationCount]

    public init(totalEvents: Int, actions: [ActionCount], mostAdded: [ConfigurationCount]) {
        self.totalEvents = totalEvents
        self.actions = actions
        self.mostAdded = mostAdded
    }
}

extension AnalyticsClient {
    /// Analytics whose every call throws `WorkshopClient.Unimplemented`, told to `report` first.
    public static func failing(reporting report: @escaping UnexpectedCallReport = { _ in }) -> AnalyticsClient {
        AnalyticsClient(
            record: { _ in throw unexpected("AnalyticsClient.record", report) },
            report: { _ in throw unexpected("AnalyticsClient.report", report) }
        )
    }
}
