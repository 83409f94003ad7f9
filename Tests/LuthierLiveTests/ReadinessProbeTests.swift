import Clocks
import Foundation
import Synchronization
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// Readiness is a real write, asked at most once per interval and told within its bound, on both
/// stores and whatever the database does.
@Suite struct ReadinessProbeTests {
    /// A probe the test answers by hand, counting how often it was asked.
    final class ManualProbe: Sendable {
        private let state = Mutex<(asked: Int, pending: [CheckedContinuation<String?, Never>])>((0, []))
        var asked: Int { state.withLock { $0.asked } }
        var waiting: Int { state.withLock { $0.pending.count } }

        func ask() async -> String? {
            await withCheckedContinuation { continuation in
                state.withLock {
                    $0.asked += 1
                    $0.pending.append(continuation)
                }
            }
        }

        func answer(_ problem: String?) {
            let pending = state.withLock { state in
                defer { state.pending = [] }
                return state.pending
            }
            for continuation in pending { continuation.resume(returning: problem) }
        }
    }

    @Test func manyAskersWithinTheIntervalCostOneProbe() async throws {
        let clock = TestClock()
        let manual = ManualProbe()
        let probe = ReadinessProbe(interval: .seconds(1), bound: .seconds(1), clock: clock) { await manual.ask() }
        let askers = Task {
            await withTaskGroup(of: String?.self) { group in
                for _ in 0..<20 { group.addTask { await probe.problem() } }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
        }
        while manual.waiting == 0 { await Task.yield() }
        manual.answer(nil)
        #expect(await askers.value == Array(repeating: nil, count: 20))
        #expect(await probe.problem() == nil)
        #expect(manual.asked == 1)

        // Past the interval, the next asker probes again and hears the new answer.
        await clock.advance(by: .seconds(1))
        let later = Task { await probe.problem() }
        while manual.waiting == 0 { await Task.yield() }
        manual.answer("the disk is full")
        #expect(await later.value == "the disk is full")
        #expect(manual.asked == 2)
    }

    @Test func aProbeThatOutlastsItsBoundIsNotReadyAtOnceAndItsAnswerIsKept() async throws {
        let clock = TestClock()
        let manual = ManualProbe()
        let probe = ReadinessProbe(interval: .seconds(1), bound: .seconds(1), clock: clock) { await manual.ask() }
        let first = Task { await probe.problem() }
        while manual.waiting == 0 { await Task.yield() }
        await clock.advance(by: .seconds(1))
        #expect(await first.value == "the database did not answer within 1.0 seconds")
        // While it still runs, an asker is told so at once, without a second probe.
        #expect(await probe.problem() == "the database did not answer within 1.0 seconds")
        #expect(manual.asked == 1)
        manual.answer(nil)
        while await probe.problem() != nil { await Task.yield() }
        #expect(manual.asked == 1)
    }

    @Test func theSQLiteProbeWritesAndFailsWhileAnotherConnectionHoldsTheWriteLock() async throws {
        try await withTemporaryDatabasePath { path in
            let store = WorkshopStore(
                sqlite: try SQLiteDatabase(path: path, migratingUpTo: nil, writeLockWait: .milliseconds(200)))
            #expect(await store.writeProblem() == nil)
            #expect(try store.sqlite.rowCount(in: "readiness_probe") == 1)
            let holder = try await LockHolder(path: path)
            let problem = await store.writeProblem()
            #expect(problem?.contains("does not take writes") == true, "\(problem ?? "nil")")
            #expect(problem?.contains("locked") == true, "\(problem ?? "nil")")
            await holder.release()
            #expect(await store.writeProblem() == nil)
        }
    }
}

@Suite(.enabled(if: StoreBackend.postgresURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct PostgresReadinessProbeTests {
    @Test func thePostgreSQLProbeWritesAndFailsWhileTheDatabaseRefusesWrites() async throws {
        let url = try #require(StoreBackend.postgresURL)
        try await PostgresTestSchema.with(url: url, now: MovableNow(Date(timeIntervalSince1970: 1_800_000_000))) {
            instance in
            let store = instance.store
            #expect(await store.writeProblem() == nil)
            try await instance.database.execute(
                """
                CREATE FUNCTION refuse_probe() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'no writes today'; END $$
                """)
            try await instance.database.execute(
                """
                CREATE TRIGGER refuse_probe BEFORE INSERT OR UPDATE ON readiness_probe
                FOR EACH ROW EXECUTE FUNCTION refuse_probe()
                """)
            let problem = await store.writeProblem()
            #expect(problem?.contains("does not take writes (no writes today)") == true, "\(problem ?? "nil")")
            try await instance.database.execute("DROP TRIGGER refuse_probe ON readiness_probe")
            #expect(await store.writeProblem() == nil)
        }
    }
}
