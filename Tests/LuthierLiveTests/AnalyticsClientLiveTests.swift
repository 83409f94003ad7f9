import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

@Suite struct AnalyticsClientLiveTests {
    static let casual = "casual-natural-mahogany-rosewood"
    static let chunky = "chunky-earth-swampAsh-birdseyeMaple"
    static let longV = "longV-sky-koa-ebony"
    static let sharpV = "sharpV-dusk-blackLimba-blackLimba"

    static func event(_ action: String, _ configuration: String?, session: String = "s1") -> AnalyticsEvent {
        AnalyticsEvent(
            action: action, configuration: configuration, at: Date(timeIntervalSince1970: 1_800_000_000),
            sessionKey: session)
    }

    /// add 4, increment 3, clear / decrement / remove 1 each; casual, chunky and longV put into
    /// carts twice each, sharpV once.
    static let history = [
        event("add", casual), event("add", longV, session: "s2"), event("increment", casual),
        event("add", sharpV), event("increment", longV, session: "s2"), event("decrement", casual),
        event("remove", sharpV), event("clear", nil), event("add", chunky, session: "s3"),
        event("increment", chunky, session: "s3"),
    ]

    @Test func theReportCountsActionsAndTheMostAddedConfigurationsInAStableOrder() async throws {
        let analytics = AnalyticsClient.live(store: try WorkshopStore(path: ":memory:"))
        try await analytics.record(Array(Self.history.prefix(4)))
        try await analytics.record(Array(Self.history.dropFirst(4)))

        let report = try await analytics.report(10)
        #expect(report.totalEvents == 10)
        #expect(
            report.actions == [
                .init(action: "add", count: 4), .init(action: "increment", count: 3),
                // Ties by name.
                .init(action: "clear", count: 1), .init(action: "decrement", count: 1),
                .init(action: "remove", count: 1),
            ])
        #expect(
            report.mostAdded == [
                .init(configuration: Self.casual, added: 2), .init(configuration: Self.chunky, added: 2),
                .init(configuration: Self.longV, added: 2), .init(configuration: Self.sharpV, added: 1),
            ])
        #expect(try await analytics.report(2).mostAdded.map(\.configuration) == [Self.casual, Self.chunky])
        // The limit cuts only the configurations.
        #expect(try await analytics.report(2).actions == report.actions)
    }

    @Test func removingAndDecrementingDoNotCountAsAdded() async throws {
        let analytics = AnalyticsClient.live(store: try WorkshopStore(path: ":memory:"))
        try await analytics.record([
            Self.event("add", Self.longV), Self.event("decrement", Self.casual), Self.event("remove", Self.casual),
            Self.event("decrement", Self.casual),
        ])
        #expect(try await analytics.report(10).mostAdded == [.init(configuration: Self.longV, added: 1)])
    }

    @Test func anEmptyLogReportsNothing() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let analytics = AnalyticsClient.live(store: store)
        try await analytics.record([])
        #expect(try store.sqlite.rowCount(in: "analytics_events") == 0)
        #expect(try await analytics.report(10) == AnalyticsReport(totalEvents: 0, actions: [], mostAdded: []))
    }

    @Test(arguments: [0, -1])
    func aLimitBelowOneListsNoConfigurations(limit: Int) async throws {
        let analytics = AnalyticsClient.live(store: try WorkshopStore(path: ":memory:"))
        try await analytics.record(Self.history)
        let report = try await analytics.report(limit)
        #expect(report.mostAdded.isEmpty)
        #expect(report.totalEvents == 10)
    }

    @Test func eventsAreKeptInTheFileWithTheirTimes() async throws {
        try await withTemporaryDatabasePath { path in
            do {
                let analytics = AnalyticsClient.live(store: try WorkshopStore(path: path))
                try await analytics.record(Self.history)
            }
            let store = try WorkshopStore(path: path)
            #expect(try await AnalyticsClient.live(store: store).report(10).totalEvents == 10)
            #expect(try store.sqlite.rowCount(in: "analytics_events") == 10)
        }
    }

    @Test func theReportReadsAsAPlainTextTable() async {
        let report = AnalyticsReport(
            totalEvents: 10,
            actions: [.init(action: "add", count: 4), .init(action: "increment", count: 3)],
            mostAdded: [.init(configuration: Self.longV, added: 12), .init(configuration: "old-option", added: 2)]
        )
        #expect(
            report.plainText() == """
                Cart activity: 10 events

                Action     Events
                ---------  ------
                add             4
                increment       3

                Most-added configurations
                #  Configuration        Guitar                                        Added
                -  -------------------  --------------------------------------------  -----
                1  longV-sky-koa-ebony  Sky Long V with Koa body and Ebony fretboard     12
                2  old-option           (unknown options)                                 2

                """)
    }

    @Test func anEmptyReportSaysSo() async {
        #expect(
            AnalyticsReport(totalEvents: 0, actions: [], mostAdded: []).plainText()
                == "No cart activity recorded yet.\n")
        let onlyClears = AnalyticsReport(totalEvents: 1, actions: [.init(action: "clear", count: 1)], mostAdded: [])
        #expect(onlyClears.plainText().hasPrefix("Cart activity: 1 event\n"))
        #expect(onlyClears.plainText().hasSuffix("No guitars put into carts yet.\n"))
    }

    @Test func lineIDsNameTheirGuitarOnlyWhenTheyAreFourKnownOptions() async {
        #expect(
            CartLine.guitar(id: Self.longV)
                == Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony))
        #expect(CartLine.guitar(id: "longV-sky-koa") == nil)
        #expect(CartLine.guitar(id: "longV-sky-koa-ebony-extra") == nil)
        #expect(CartLine.guitar(id: "longV-sky-koa-plastic") == nil)
    }
}
