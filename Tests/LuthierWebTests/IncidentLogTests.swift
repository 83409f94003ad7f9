import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

@testable import LuthierWeb

/// The incidents' bounds: a count, the bytes of their traces, a retention on the wall clock; and a
/// failure that comes again with no new step counted on its incident, not kept again.
@Suite struct IncidentLogTests {
    /// A wall clock the test moves.
    final class Wall: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
        @Sendable func now() -> Date { date.withLock { $0 } }
    }

    static let failure = Incident.Failure(method: "POST", route: "/build", status: 503, sentence: "Down.")

    static func log(count: Int = 10, bytes: Int = 1_000_000, retention: Duration = .seconds(3_600), wall: Wall)
        -> IncidentLog
    {
        IncidentLog(
            limits: .init(count: count, bytes: bytes, retention: retention), now: wall.now,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// A session's recorder whose cart has kept `steps` steps, nobody watching.
    static func recorder(steps: Int) -> TapRecorder {
        let recorder = TapRecorder(
            capacity: 8, traceCapacity: 64, clock: ContinuousClock(), flightCapacity: 16, flightBudget: 64_000)
        let store = Store(
            initialState: CartState(), reducer: CartFeature(discounts: [], now: { Date(timeIntervalSince1970: 0) }),
            trace: StoreTrace(recorder, store: CartFeature.traceName))
        for guitar in Guitar.allConfigurations.prefix(steps) { _ = try? store.send(.cart(.add(guitar))) }
        return recorder
    }

    @Test func theSameFailureWithNoNewStepIsCountedNotKeptAgain() {
        let wall = Wall()
        let log = Self.log(wall: wall)
        let recorder = Self.recorder(steps: 2)
        let first = log.keep(Self.failure, recordedBy: recorder, codes: [])
        #expect(log.keep(Self.failure, recordedBy: recorder, codes: []) == first)
        #expect(log.incidents.map(\.repeats) == [1])
        // Another step, or another failure, is another incident.
        _ = log.keep(
            .init(method: "POST", route: "/cart/items", status: 503, sentence: "Down."), recordedBy: recorder, codes: []
        )
        #expect(log.incidents.count == 2)
        #expect(log.incidents.first?.failure.route == "/cart/items", "newest first")
    }

    @Test func theOldestGoFirstPastTheCountOrTheBytes() throws {
        let wall = Wall()
        let counted = Self.log(count: 2, wall: wall)
        let recorders = (1...3).map { Self.recorder(steps: $0) }
        let ids = recorders.map { counted.keep(Self.failure, recordedBy: $0, codes: []) }
        #expect(counted.incidents.map(\.id) == [ids[2], ids[1]])

        let one = try #require(counted.incidents.first).trace.count
        let weighed = Self.log(bytes: one + one / 2, wall: wall)
        for recorder in recorders { weighed.keep(Self.failure, recordedBy: recorder, codes: []) }
        #expect(weighed.incidents.count == 1)
        #expect(weighed.bytes == weighed.incidents.first?.trace.count)
        // A trace larger than all the room there is is not kept, and counted.
        let tiny = Self.log(bytes: 10, wall: wall)
        #expect(tiny.keep(Self.failure, recordedBy: recorders[0], codes: []) == nil)
        #expect(tiny.incidents.isEmpty && tiny.notKept == 1)
    }

    @Test func anIncidentIsGoneAfterItsRetention() {
        let wall = Wall()
        let log = Self.log(retention: .seconds(600), wall: wall)
        log.keep(Self.failure, recordedBy: Self.recorder(steps: 1), codes: [])
        wall.advance(by: 599)
        #expect(log.incidents.count == 1)
        wall.advance(by: 1)
        log.dropExpired()
        #expect(log.bytes == 0)
        #expect(log.incidents.isEmpty)
    }
}
