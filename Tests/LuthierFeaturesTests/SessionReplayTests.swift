import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// A session's trace folded again through the reducers, with no server: recorded from the real
/// view models on a test clock, written as JSON and read back, replayed identically; a changed
/// reducer, a changed refusal and a paused recording each told apart.
@Suite struct SessionReplayTests {
    static let expired = DiscountCode(code: "SPRING", percent: 15, expires: LuthierEnvironment.testNow - 86_400)
    static let band = DiscountCode(code: "BAND10", percent: 10)
    static let secret = DiscountCode(code: "STAFF50", percent: 50)

    /// A builder and a cart recording into one recorder, as a session's are.
    struct Recorded {
        let recorder: TapRecorder
        let build: BuildViewModel
        let cart: CartViewModel
        let stopWatching: @Sendable () -> Void

        init(traceCapacity: Int = 64) {
            let clock = ManualClock()
            recorder = TapRecorder(
                capacity: 64, traceCapacity: traceCapacity, clock: clock, now: { LuthierEnvironment.testNow })
            var environment = LuthierEnvironment.test(clock: clock)
            environment.taps = recorder
            stopWatching = recorder.watch()
            build = BuildViewModel(environment: environment, sessionKey: "orders")
            cart = CartViewModel(
                discounts: [SessionReplayTests.band, SessionReplayTests.expired, SessionReplayTests.secret],
                now: { LuthierEnvironment.testNow }, taps: recorder)
        }

        /// A customer's few minutes: options, a cart, a code that works, one that has expired and
        /// one that does not exist, a line that is not there.
        func play() async throws {
            await build.send(.change(GuitarChange(shape: .longV, color: .sky)))
            await build.send(.change(GuitarChange(body: .koa)))
            try await cart.send(.add(build.latestState.guitar))
            try await cart.send(.increment(lineID: CartLine.id(for: build.latestState.guitar)))
            try await cart.applyDiscount(code: " band10 ")
            await #expect(throws: CartViewModel.DiscountFailure.self) { try await cart.applyDiscount(code: "spring") }
            await #expect(throws: CartViewModel.DiscountFailure.self) { try await cart.applyDiscount(code: "nope") }
            await #expect(throws: CartError.self) { try await cart.send(.remove(lineID: "no-such-line")) }
            await build.send(.startOver)
        }

        func trace() throws -> SessionTrace {
            let steps = recorder.traceSteps
            let written = try SessionTrace(
                steps: steps, dropped: recorder.recordedSteps - steps.count,
                shopCodes: [SessionReplayTests.band, SessionReplayTests.expired, SessionReplayTests.secret]
            ).json()
            return try SessionTrace(json: written)
        }
    }

    @Test("a trace written as JSON and read back replays identically, refusals included")
    func identical() async throws {
        let session = Recorded()
        try await session.play()
        let trace = try session.trace()
        #expect(trace.steps.count == 9)
        #expect(trace.steps.filter { $0.refusal != nil }.count == 3)
        #expect(trace.steps.map(\.origin).allSatisfy { $0 == .input })
        let verdict = try SessionReplay.live.replay(trace)
        #expect(verdict == .identical(steps: 9, stores: ["build#1", "cart#2"], gaps: 0), "\(verdict.summary)")
        #expect(verdict.summary == "identical: 9 steps over build#1, cart#2")
    }

    @Test("a trace carries only the codes its session typed, never the shop's other codes")
    func onlyTypedCodes() async throws {
        let session = Recorded()
        try await session.play()
        let trace = try session.trace()
        #expect(Set(trace.discounts.map(\.code)) == ["BAND10", "SPRING"])
        let json = String(decoding: try trace.json(), as: UTF8.self)
        #expect(!json.contains("STAFF50"))
    }

    @Test("a changed reducer is caught at the first step it leads elsewhere, with where and what")
    func changedReducerCaught() async throws {
        let session = Recorded()
        try await session.play()
        var changed = SessionReplay.live
        // The bug: the builder forgets the colour of a change.
        changed.stores[BuildFeature.traceName] = .reducer { _ in ColourBlindBuilder() }
        let verdict = try changed.replay(try session.trace())
        guard case .differs(let difference) = verdict else {
            Issue.record("the change was not caught: \(verdict.summary)")
            return
        }
        #expect(difference.step == 1)
        #expect(difference.store == "build#1")
        #expect(difference.path == ".guitar.color")
        #expect(difference.recorded == "\"sky\"")
        #expect(difference.replayed == "\"\(Guitar.standard.color.rawValue)\"")
        #expect(verdict.summary.hasPrefix("differs at step 1 of 9 (build#1, input change(shape: Long V, color: Sky)"))
    }

    @Test("a reducer that refuses differently is caught at the refusal")
    func changedRefusalCaught() async throws {
        let session = Recorded()
        try await session.play()
        var changed = SessionReplay.live
        // The bug: expired codes are taken as valid.
        changed.stores[CartFeature.traceName] = .reducer { context in
            CartFeature(discounts: context.discounts, now: { .distantPast })
        }
        let verdict = try changed.replay(try session.trace())
        guard case .differs(let difference) = verdict else {
            Issue.record("the change was not caught: \(verdict.summary)")
            return
        }
        #expect(difference.store == "cart#2")
        #expect(difference.path == "refusal")
        #expect(difference.replayed == "none")
    }

    @Test("a recording that paused is replayed across the pause, and the pause is told")
    func pausedRecording() async throws {
        let session = Recorded()
        await session.build.send(.change(GuitarChange(color: .sky)))
        session.stopWatching()
        await session.build.send(.change(GuitarChange(shape: .longV)))
        let resumed = session.recorder.watch()
        await session.build.send(.change(GuitarChange(body: .koa)))
        resumed()
        let verdict = try SessionReplay.live.replay(try session.trace())
        #expect(verdict == .identical(steps: 2, stores: ["build#1"], gaps: 1), "\(verdict.summary)")
    }

    @Test("the ring keeps the latest steps; the trace says how many it dropped and still replays")
    func bounded() async throws {
        let session = Recorded(traceCapacity: 4)
        try await session.play()
        let trace = try session.trace()
        #expect(trace.steps.count == 4)
        #expect(trace.dropped == 5)
        #expect(try SessionReplay.live.replay(trace) == .identical(steps: 4, stores: ["build#1", "cart#2"], gaps: 0))
    }

    @Test("nothing is kept while nobody watches")
    func offCostsNothing() async throws {
        let session = Recorded()
        session.stopWatching()
        try await session.play()
        #expect(session.recorder.traceSteps.isEmpty)
    }

    @Test("a moment is each store's state right after a step: its last state by then, or its first one still to come")
    func moments() async throws {
        let session = Recorded()
        try await session.play()
        let steps = session.recorder.traceSteps
        #expect(steps.map(\.number) == Array(1...9))
        let current = (build: session.build.latestState, cart: session.cart.latestState, checkout: CheckoutState?.none)
        let first = try #require(SessionMoment(after: 1, in: steps, current: current))
        #expect(first.build.guitar == Guitar(shape: .longV, color: .sky))
        #expect(first.cart.cart.isEmpty, "the cart's first step came later; it was empty until then")
        let coded = try #require(SessionMoment(after: 5, in: steps, current: current))
        #expect(coded.build.guitar == Guitar(shape: .longV, color: .sky, body: .koa))
        #expect(coded.cart.discount == Self.band && coded.cart.cart.guitarCount == 2)
        #expect(coded.output.cart.guitarCount == 2)
        #expect(coded.checkout == nil)
        let last = try #require(SessionMoment(after: 9, in: steps, current: current))
        #expect(last.build.guitar == .standard)
        #expect(SessionMoment(after: 10, in: steps, current: current) == nil)
    }

    @Test("a placed order is kept without its keys, in the action and in the states")
    func ordersRedacted() throws {
        let order = Order(
            number: "LU-7K3M9Q", accessKey: "secret-access", checkoutID: "c", lines: [], shipping: .pickup,
            currency: .usd, rate: 1,
            quote: Quote(lines: [], shipping: ShippingOption(method: .pickup, price: .zero(.usd)), rate: .dollar()),
            placedAt: LuthierEnvironment.testNow, sessionKey: "secret-session")
        let action = CheckoutFeature.Action.orderPlaced(order).redacted
        guard case .orderPlaced(let kept) = action else {
            Issue.record("the action changed kind: \(action)")
            return
        }
        #expect(kept.accessKey == Order.redactedKey && kept.sessionKey == Order.redactedKey)
        #expect(kept.number == "LU-7K3M9Q")
    }

    @Test("a trace in another format, or naming a store this build lacks, is refused with a sentence")
    func refusedTraces() throws {
        let future = Data(#"{"format": 2, "discounts": [], "dropped": 0, "steps": []}"#.utf8)
        #expect(throws: DecodingError.self) { try SessionTrace(json: future) }
        let unknown = Data(
            #"{"format": 1, "discounts": [], "dropped": 0, "steps": [{"store": "till", "instance": 1, "at": 0, "date": 0, "origin": "input", "action": {}, "before": {}}]}"#
                .utf8)
        #expect(throws: DecodingError.self) { try SessionTrace(json: unknown) }
        let empty = try SessionTrace(json: Data(#"{"format": 1, "discounts": [], "dropped": 0, "steps": []}"#.utf8))
        #expect(try SessionReplay.live.replay(empty) == .identical(steps: 0, stores: [], gaps: 0))
    }

    @Test(
        "a step whose number, cause, instance or time does not fit what a kept step holds is refused, naming the field",
        arguments: [
            ("number", -1), ("number", 1 << 32), ("cause", 1 << 40), ("instance", -2), ("at", -5), ("at", Int.max),
        ])
    func refusedCounts(field: String, value: Int) throws {
        var step = TraceStep(
            store: BuildFeature.traceName, instance: 1, at: .milliseconds(1_500), date: LuthierEnvironment.testNow,
            origin: .input, action: BuildAction.startOver, before: BuildState(guitar: .standard),
            after: BuildState(guitar: .standard), refusal: nil)
        step.number = 3
        step.cause = 2
        let written = try SessionTrace(steps: [step], shopCodes: []).json()
        let read = try SessionTrace(json: written).steps[0]
        #expect(read.number == 3 && read.cause == 2 && read.at == .milliseconds(1_500))

        let text = String(decoding: written, as: UTF8.self)
        let changedText = text.replacingOccurrences(
            of: #""\#(field)" : [0-9]+"#, with: "\"\(field)\" : \(value)", options: .regularExpression)
        #expect(changedText != text)
        let changed = Data(changedText.utf8)
        let error = try #require(throws: DecodingError.self) { try SessionTrace(json: changed) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("not a sentence about the value: \(error)")
            return
        }
        #expect(context.debugDescription.hasPrefix("\(field) must be"), "\(context.debugDescription)")
    }
}

/// The builder with a bug: a change's colour is ignored.
private struct ColourBlindBuilder: Reducer {
    func reduce(into state: inout BuildState, action: BuildAction) -> Effect<BuildAction> {
        guard case .change(var change) = action else {
            state = BuildState.reduce(state, action)
            return .none
        }
        change.color = nil
        state = BuildState.reduce(state, .change(change))
        return .none
    }
}
