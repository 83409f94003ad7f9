import Foundation
import LuthierDomain
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// A server killed in the middle of writing an order must leave no trace of it: SQLite's WAL only
/// makes a transaction visible once its commit frame is written, so a `SIGKILL` between the
/// writes and the commit must lose both the order row and the stock decrements.
///
/// The test runs this very test binary again as a child process, with only `childKilledMidOrder`
/// selected and the database path in its environment. The child places an order through the
/// real `placeOrder` transaction and, after every write but before `COMMIT`, sends itself
/// `SIGKILL` — no cleanup, no rollback, no closing of the file. The parent then checks the file.
/// (`anOrderTransactionThatFailsHalfWayLeavesNothing` covers the in-process failure.)
@Suite struct WorkshopStoreCrashTests {
    static let databaseVariable = "LUTHIER_CRASH_TEST_DATABASE"
    static let marker = "writes done, killing myself before COMMIT"

    #if os(Linux)
        @Test func aProcessKilledMidOrderLeavesNoPartialOrder() async throws {
            try await withTemporaryDatabasePath { path in
                let store = try WorkshopStore(path: path)

                let child = Process()
                child.executableURL = URL(
                    fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
                )
                child.arguments = ["--testing-library", "swift-testing", "--filter", "childKilledMidOrder"]
                child.environment = ProcessInfo.processInfo.environment.merging([Self.databaseVariable: path]) { $1 }
                let output = Pipe()
                child.standardOutput = output
                child.standardError = output
                try child.run()
                let transcript = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.waitUntilExit()

                #expect(child.terminationReason == .uncaughtSignal, "\(transcript)")
                #expect(child.terminationStatus == SIGKILL)
                #expect(transcript.contains(Self.marker), "the child never reached the commit: \(transcript)")

                // The store that stayed open, and a fresh one, both see the file as before.
                for reader in [store, try WorkshopStore(path: path)] {
                    #expect(try await reader.order(checkoutID: "killed") == nil)
                    #expect(try await reader.openOrderCount() == 0)
                    #expect(try await reader.stock(of: .body(.koa)) == 6)
                    #expect(try await reader.stock(of: .fretboard(.ebony)) == 8)
                }
                // The dead writer's lock is gone and the file takes the same order normally.
                let order = try await store.placeOrder(Self.request)
                #expect(try await store.order(number: order.number) == order)
                #expect(try await store.stock(of: .body(.koa)) == 5)
            }
        }
    #endif

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment[databaseVariable] != nil,
            "runs only as the child process of aProcessKilledMidOrderLeavesNoPartialOrder"
        )
    )
    func childKilledMidOrder() async throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.databaseVariable])
        let store = try WorkshopStore(path: path)
        _ = try await store.placeOrder(Self.request) {
            FileHandle.standardOutput.write(Data("\(Self.marker)\n".utf8))
            kill(getpid(), SIGKILL)
        }
        Issue.record("the child outlived SIGKILL")
    }

    static let request = OrderFixture.request(checkoutID: "killed", guitar: Guitar(body: .koa, fretboard: .ebony))
}
