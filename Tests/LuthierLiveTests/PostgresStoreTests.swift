import Clocks
import Foundation
import Logging
import Testing

@testable import LuthierLive

/// A call on a PostgreSQL store that cannot reach its server gives up after the store's bound,
/// on the store's clock (here an immediate one: the bound passes at once, with no waiting).
@Suite struct PostgresStoreTests {
    @Test func aCallGivesUpAfterItsBoundWithASentence() async throws {
        let location = try PostgresLocation(url: "postgres://nobody@127.0.0.1:1/none?sslmode=disable")
        let store = PostgresStore(
            location: location, logger: Logger(label: "test"), callTimeout: .seconds(5), clock: ImmediateClock())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            await #expect(
                throws: WorkshopStoreError.unreachable(
                    database: "postgres://nobody@127.0.0.1:1/none", after: .seconds(5))
            ) {
                try await store.order(number: "LU-AAAAAA")
            }
            #expect(await !store.isReachable())
            #expect(
                WorkshopStoreError.unreachable(database: "postgres://x@h:1/d", after: .seconds(5)).description
                    == "The database at postgres://x@h:1/d did not answer within 5.0 seconds")
        }
    }
}
