import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// Taps: what a tapped stream or store did, in order, at instants on a manual clock; nothing while
/// nobody watches; never more than the ring holds.
@Suite struct TapRecorderTests {
    /// A reducer small enough to read: `add` counts, `fetch` asks for work that sends `fetched`
    /// back a second later (replacing the one in flight).
    struct Counter: Reducer {
        enum Action: Equatable, Sendable {
            case add(Int)
            case fetch(Int)
            case fetched(Int)
        }

        let clock: ManualClock

        func reduce(into state: inout Int, action: Action) -> Effect<Action> {
            switch action {
            case .add(let amount):
                state += amount
                return .none
            case .fetch(let value):
                let clock = clock
                return .run { send in
                    try? await clock.sleep(for: .seconds(1))
                    send(.fetched(value))
                }
                .cancellable(id: EffectID("counter.fetch"))
            case .fetched(let value):
                state = value
                return .none
            }
        }
    }

    @Test func nothingIsRecordedOrDescribedWhileNobodyWatches() {
        let recorder = TapRecorder(capacity: 8, clock: ManualClock())
        let described = Mutex(0)
        recorder.record(
            "lane", .value,
            {
                described.withLock { $0 += 1 }
                return "text"
            }())
        #expect(!recorder.isRecording)
        #expect(recorder.events.isEmpty)
        #expect(described.withLock { $0 } == 0)
    }

    @Test func aWatcherTurnsRecordingOnUntilItStopsAndEventsCarryTheirInstant() async {
        let clock = ManualClock()
        let recorder = TapRecorder(capacity: 8, clock: clock)
        let stop = recorder.watch()
        let other = recorder.watch()
        recorder.record("a", .subscription)
        await clock.advance(by: .milliseconds(250))
        recorder.record("a", .value, "one")
        stop()
        stop()  // a second stop changes nothing: the other watcher still watches
        #expect(recorder.isRecording)
        await clock.advance(by: .seconds(1))
        recorder.record("a", .completion)
        other()
        recorder.record("a", .value, "unseen")
        #expect(
            recorder.events == [
                TapEvent(lane: "a", kind: .subscription, at: .zero),
                TapEvent(lane: "a", kind: .value, text: "one", at: .milliseconds(250)),
                TapEvent(lane: "a", kind: .completion, at: .milliseconds(1_250)),
            ])
    }

    @Test func theRingKeepsTheNewestEventsInOrder() {
        let recorder = TapRecorder(capacity: 3, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        for index in 1...7 { recorder.record("lane", .value, "\(index)") }
        #expect(recorder.events.map(\.text) == ["5", "6", "7"])
        #expect(recorder.recorded == 7)
    }

    @Test func descriptionsAreShortAndOneLine() {
        #expect(TapRecorder.shortened("a\nb\tc") == "a b c")
        let long = String(repeating: "x", count: 200)
        #expect(TapRecorder.shortened(long).count == TapRecorder.textLimit)
        #expect(TapRecorder.shortened(long).hasSuffix("…"))
    }

    @Test func eventsPrintAsCombinesPrintDoes() {
        #expect(
            TapEvent(lane: "checkout.input", kind: .value, text: "currencyChosen(EUR)", at: .zero).printed
                == "checkout.input: receive value: (currencyChosen(EUR))")
        #expect(TapEvent(lane: "x", kind: .completion, at: .zero).printed == "x: receive finished")
        #expect(TapEvent(lane: "x", kind: .cancellation, at: .zero).printed == "x: receive cancel")
        #expect(TapEvent(lane: "x", kind: .failure, text: "down", at: .zero).printed == "x: receive error: (down)")
    }

    // MARK: - The tap operator

    @Test func aTappedStreamRecordsItsSubscriptionValuesAndEnd() async {
        let recorder = TapRecorder(capacity: 16, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        let (stream, input) = AsyncStream<Int>.makeStream()
        for value in [1, 2] { input.yield(value) }
        input.finish()
        var read: [Int] = []
        for await value in stream.tap("numbers", into: recorder) { read.append(value) }
        #expect(read == [1, 2])
        #expect(recorder.events.map(\.kind) == [.subscription, .value, .value, .completion])
        #expect(recorder.events.map(\.text) == ["", "1", "2", ""])
    }

    struct Down: Error, CustomStringConvertible {
        var description: String { "the store is down" }
    }

    @Test func aFailureIsRecordedAndRethrown() async {
        let recorder = TapRecorder(capacity: 16, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        let (stream, input) = AsyncThrowingStream<Int, any Error>.makeStream()
        input.yield(1)
        input.finish(throwing: Down())
        await #expect(throws: Down.self) {
            for try await _ in stream.tap("rates", into: recorder) {}
        }
        #expect(recorder.events.map(\.kind) == [.subscription, .value, .failure])
        #expect(recorder.events.last?.text == "the store is down")
    }

    @Test func aCancelledReaderIsRecordedAsACancellation() async {
        let recorder = TapRecorder(capacity: 16, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        let (stream, input) = AsyncStream<Int>.makeStream()
        let (started, startedInput) = AsyncStream<Void>.makeStream()
        let reader = Task {
            for await _ in stream.tap("outputs", into: recorder) { startedInput.yield() }
        }
        input.yield(1)
        _ = await firstValues(1, of: started)
        reader.cancel()
        await reader.value
        #expect(recorder.events.map(\.kind) == [.subscription, .value, .cancellation])
    }

    // MARK: - A store's taps

    @Test func aStoreRecordsItsInputsStatesEffectsAndTheirAnswers() async {
        let clock = ManualClock()
        let recorder = TapRecorder(capacity: 32, clock: clock)
        let stop = recorder.watch()
        defer { stop() }
        let store = Store(initialState: 0, reducer: Counter(clock: clock), tap: Tap(recorder, "counter"))
        store.send(.add(2))
        store.send(.add(0))  // folded, but the state is the same: no state marble
        let first = store.send(.fetch(5))
        let second = store.send(.fetch(7))  // replaces the first
        await first.finish()
        await clock.advance(by: .seconds(1))
        await second.finish()
        #expect(
            recorder.events.map { "\($0.lane) \($0.kind) \($0.text)" } == [
                "counter.input value add(2)",
                "counter.state value 2",
                "counter.input value add(0)",
                "counter.input value fetch(5)",
                "counter.effects subscription counter.fetch",
                "counter.input value fetch(7)",
                "counter.effects cancellation counter.fetch",
                "counter.effects subscription counter.fetch",
                "counter.effect value fetched(7)",
                "counter.state value 7",
                "counter.effects completion counter.fetch",
            ])
    }

    /// Answers each ask at once from an effect: work in a task of the store's, without a clock.
    struct Echo: Reducer {
        enum Action: Equatable, Sendable {
            case ask(Int)
            case answered(Int)
            case add(Int)
        }

        func reduce(into state: inout Int, action: Action) -> Effect<Action> {
            switch action {
            case .ask(let value):
                return .run { send in send(.answered(value)) }
            case .answered(let value):
                state = value
                return .none
            case .add(let amount):
                state += amount
                return .none
            }
        }
    }

    @Test func anInputsCauseGoesWithItsEffectsTheirAnswersAndTheStatesTheyLeadTo() async {
        let recorder = TapRecorder(capacity: 32, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        let store = Store(initialState: 0, reducer: Echo(), tap: Tap(recorder, "echo"))
        #expect(recorder.nextCause() == 1)
        await TapCause.$current.withValue(1) { store.send(.ask(5)) }.finish()
        let second = recorder.nextCause()
        TapCause.$current.withValue(second) { _ = store.send(.add(1)) }
        store.send(.add(1))  // caused by nothing recorded
        #expect(
            recorder.events.map { "\($0.lane) \($0.kind) \($0.text) \($0.cause.map(String.init) ?? "-")" } == [
                "echo.input value ask(5) 1",
                "echo.effects subscription run 1",
                "echo.effect value answered(5) 1",
                "echo.state value 5 1",
                "echo.effects completion run 1",
                "echo.input value add(1) 2",
                "echo.state value 6 2",
                "echo.input value add(1) -",
                "echo.state value 7 -",
            ])
        // Stream writes on other threads find theirs through the version it was noted with.
        TapCause.$current.withValue(second) { recorder.noteCause(ofVersion: 9, targets: ["price"]) }
        #expect(recorder.cause(ofVersion: 9)?.cause == second)
        #expect(recorder.versions(causedBy: second).map(\.targets) == [["price"]])
        #expect(recorder.cause(ofVersion: 8) == nil)
    }

    @Test func nothingIsNumberedWhileNothingRecords() {
        let recorder = TapRecorder(capacity: 8, clock: ManualClock())
        #expect(recorder.nextCause() == 0)
        TapCause.$current.withValue(3) { recorder.noteCause(ofVersion: 1, targets: ["price"]) }
        #expect(recorder.cause(ofVersion: 1) == nil)
    }

    @Test func theExchangeRatesRequestsAreTappedWithTheirAnswersAndFailures() async {
        let recorder = TapRecorder(capacity: 8, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        let rates = FakeExchangeRates()
        rates.fail(.gbp)
        let client = rates.client.tapped("rates.request", into: recorder)
        _ = try? await client.rate(.eur)
        _ = try? await client.rate(.gbp)
        #expect(recorder.events.map(\.kind) == [.subscription, .value, .subscription, .failure])
        #expect(recorder.events.map(\.text).first == "EUR")
        #expect(recorder.events[1].text.hasPrefix("EUR "))
        #expect(recorder.events[3].text.hasPrefix("GBP: "))
    }

    @Test func anOrderNeverShowsItsKeys() {
        let recorder = TapRecorder(capacity: 8, clock: ManualClock())
        let stop = recorder.watch()
        defer { stop() }
        var order = WorkshopFloorFixture.order(1)
        order.accessKey = "f3c9a1e07b5d4c2a9e8f6b1d0c7a5e3f"
        order.sessionKey = "9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a"
        let tap = Tap(recorder, "checkout")
        tap.record("effect", .value, "\(CheckoutFeature.Action.orderPlaced(order))")
        tap.record("state", .value, "\(Optional(order) as Any)")
        for event in recorder.events {
            #expect(!event.text.contains(order.accessKey))
            #expect(!event.text.contains(order.sessionKey))
            #expect(event.text.contains(order.number))
        }
    }

    /// A cart of `lines` different guitars, each added by a traced store (the steps weigh more as
    /// the cart grows).
    static func recordCart(lines: Int, into recorder: TapRecorder) throws {
        let store = Store(
            initialState: CartState(), reducer: CartFeature(book: [], now: { Date(timeIntervalSince1970: 0) }),
            trace: StoreTrace(recorder, store: CartFeature.traceName))
        let guitars = Guitar.allConfigurations.prefix(lines)
        for guitar in guitars { try store.send(.cart(.add(guitar))) }
    }

    @Test func aSessionsTraceKeepsItsNewestStepsWithinItsByteBudget() throws {
        let recorder = TapRecorder(capacity: 10, traceCapacity: 256, clock: ManualClock(), traceBudget: 8_000)
        recorder.lease(for: .seconds(60))
        try Self.recordCart(lines: 20, into: recorder)
        #expect(recorder.recordedSteps == 20)
        #expect(recorder.traceBytes <= 8_000)
        let kept = recorder.traceSteps
        #expect(!kept.isEmpty && kept.count < 20, "\(kept.count)")
        // The newest are kept, numbered as recorded.
        #expect(kept.last?.number == 20)
        #expect(kept.map(\.number) == Array((21 - kept.count)...20))
        #expect(kept.reduce(0) { $0 + $1.bytes } == recorder.traceBytes)
    }

    @Test func everySessionsTraceTogetherStaysWithinTheSharedBudgetAndAClosedOneGivesItsShareBack() throws {
        let shared = TraceBudget(limit: 10_000)
        var first: TapRecorder? = TapRecorder(
            capacity: 10, traceCapacity: 256, clock: ManualClock(), traceBudget: 64_000, sharedBudget: shared)
        let second = TapRecorder(
            capacity: 10, traceCapacity: 256, clock: ManualClock(), traceBudget: 64_000, sharedBudget: shared)
        for recorder in [first, second].compactMap({ $0 }) {
            recorder.lease(for: .seconds(60))
            try Self.recordCart(lines: 20, into: recorder)
        }
        let firstBytes = first?.traceBytes ?? 0
        #expect(shared.inUse == firstBytes + second.traceBytes)
        #expect(shared.inUse <= 10_000)
        // The first took what the shop allows: the second's steps are counted, not kept.
        #expect(second.recordedSteps == 20)
        #expect(second.traceSteps.count < 20)
        first = nil
        #expect(shared.inUse == second.traceBytes, "a closed session gives its share back")
        try Self.recordCart(lines: 3, into: second)
        #expect(second.traceSteps.last?.number == 23, "and the room is used again")
        #expect(shared.inUse <= 10_000)
    }

    @Test func aFlightRecorderKeepsTheLastStepsWhileNobodyWatchesWithinItsBounds() throws {
        let shared = TraceBudget(limit: 1_000_000)
        let recorder = TapRecorder(
            capacity: 10, traceCapacity: 256, clock: ManualClock(), traceBudget: 64_000, sharedBudget: shared,
            flightCapacity: 4, flightBudget: 8_000)
        #expect(!recorder.isRecording && recorder.keepsSteps)
        try Self.recordCart(lines: 6, into: recorder)
        // Nobody watched: the last four steps are kept, numbered as recorded, under the bytes.
        #expect(recorder.traceSteps.map(\.number) == [3, 4, 5, 6])
        #expect(recorder.traceBytes <= 8_000)
        #expect(shared.inUse == recorder.traceBytes)
        // Nothing else is recorded while nobody watches: no tap events, no causes.
        #expect(recorder.events.isEmpty)
        #expect(recorder.nextCause() == 0)

        // A watcher gets the trace's bounds; once it leaves, the next step shrinks the steps back.
        let stop = recorder.watch()
        try Self.recordCart(lines: 10, into: recorder)
        #expect(recorder.traceSteps.count == 14)
        stop()
        #expect(recorder.traceSteps.count == 14, "a closed inspector's trace can still be downloaded")
        try Self.recordCart(lines: 1, into: recorder)
        #expect(recorder.traceSteps.map(\.number) == [14, 15, 16, 17])
        #expect(shared.inUse == recorder.traceBytes)
    }

    @Test func aFlightRecordersStepsTakeTheRoomTheyNeedNotTwice() throws {
        let recorder = TapRecorder(
            capacity: 10, traceCapacity: 256, clock: ManualClock(), flightCapacity: 8, flightBudget: 64_000)
        try Self.recordCart(lines: 5, into: recorder)
        let steps = recorder.traceSteps
        #expect(steps.count == 5)
        // An array doubling its room would hold room for eight after the fifth step.
        #expect(steps.capacity < 8, "\(steps.capacity)")
    }

    @Test func withoutAFlightRecorderNoStepIsKeptWhileNobodyWatches() throws {
        let recorder = TapRecorder(capacity: 10, traceCapacity: 256, clock: ManualClock())
        #expect(!recorder.keepsSteps)
        try Self.recordCart(lines: 3, into: recorder)
        #expect(recorder.traceSteps.isEmpty)
        #expect(recorder.recordedSteps == 0, "not even counted: nothing was described")
    }
}
