import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// How an instance reads the workshop's notifications, without a server.
@Suite struct PostgreSQLDatabaseNotificationsTests {
    @Test func aWorkshopChangeFromThisInstanceIsSkippedAndAnyOtherIsRead() {
        #expect(PostgreSQLDatabase.change(told: "placed:LU-7K3M9Q abc", notFrom: "abc") == nil)
        #expect(
            PostgreSQLDatabase.change(told: "placed:LU-7K3M9Q abc", notFrom: "xyz")
                == .placed(number: "LU-7K3M9Q"))
        // An instance of an earlier version names none: its change is read.
        #expect(PostgreSQLDatabase.change(told: "advanced:LU-7K3M9Q", notFrom: "abc") == .advanced(number: "LU-7K3M9Q"))
        #expect(PostgreSQLDatabase.change(told: "shouted:LU-7K3M9Q xyz", notFrom: "abc") == nil)
    }
}
