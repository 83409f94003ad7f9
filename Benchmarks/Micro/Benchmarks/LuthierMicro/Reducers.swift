import Benchmark
import Foundation
import LuthierDomain
import LuthierFeatures

/// The pure folds behind every view model: each input of every session goes through one of these, so
/// their cost (and their allocations) is paid on every form post and every workshop event.
func reducerBenchmarks() {
    Benchmark("Cart.reduce (100 actions)", configuration: .micro) { benchmark in
        let actions = ReducerInputs.cartActions
        for _ in benchmark.scaledIterations {
            var cart = Cart.empty
            for action in actions {
                cart = try Cart.reduce(cart, action)
            }
            blackHole(cart)
        }
    }

    Benchmark("BuildState.reduce (100 actions)", configuration: .micro) { benchmark in
        let actions = ReducerInputs.buildActions
        for _ in benchmark.scaledIterations {
            var state = BuildState()
            for action in actions {
                state = BuildState.reduce(state, action)
            }
            blackHole(state)
        }
    }

    // What `BuildViewModel` does per input: the fold's step, then the output every reader is sent.
    Benchmark("BuildState.reduce + BuildOutput (100 actions)", configuration: .micro) { benchmark in
        let actions = ReducerInputs.buildActions
        for _ in benchmark.scaledIterations {
            var state = BuildState()
            for action in actions {
                state = BuildState.reduce(state, action)
                blackHole(BuildOutput(state: state))
            }
        }
    }

    // What a session does per cart post now that its composition is sinks, not loops: the store
    // applies the action, then (outside its lock) the sink is called with the new output, on the
    // poster's own thread. Guards the cost of `Store.sink`'s delivery (`BroadcastSink`).
    Benchmark("CartViewModel.send + sinkOutputs (100 actions)", configuration: .micro) { benchmark in
        let actions = ReducerInputs.cartActions
        for _ in benchmark.scaledIterations {
            let model = CartViewModel()
            let subscription = model.sinkOutputs { blackHole($0) }
            for action in actions {
                try await model.send(action)
            }
            subscription.cancel()
            model.close()
        }
    }

    // What the flight recorder adds to every change of a session nobody inspects: the store keeps a
    // redacted copy of the action and of the states before and after it, within 16 steps.
    for flight in [0, 16] {
        Benchmark(
            "Store.send, cart, flight recorder \(flight == 0 ? "off" : "on") (100 actions)", configuration: .micro
        ) { benchmark in
            let actions = ReducerInputs.cartActions.map(CartFeature.Action.cart)
            for _ in benchmark.scaledIterations {
                let recorder = TapRecorder(
                    capacity: 1, traceCapacity: 256, clock: ContinuousClock(), traceBudget: 64 * 1_024,
                    flightCapacity: flight, flightBudget: 4 * 1_024)
                let store = Store(
                    initialState: CartState(), reducer: CartFeature(discounts: [], now: { ReducerInputs.start }),
                    trace: StoreTrace(recorder, store: CartFeature.traceName))
                for action in actions { _ = try store.send(action) }
                blackHole(recorder.traceSteps.count)
                store.close()
            }
        }
    }

    Benchmark("WorkshopFloorState.reduce (100 events)", configuration: .micro) { benchmark in
        let events = ReducerInputs.floorEvents
        for _ in benchmark.scaledIterations {
            var state = WorkshopFloorState(now: ReducerInputs.start)
            for event in events {
                state = WorkshopFloorState.reduce(state, event)
            }
            blackHole(state)
        }
    }

    Benchmark("KioskState.reduce (100 events)", configuration: .micro) { benchmark in
        let events = ReducerInputs.kioskEvents
        let initial = KioskState(floor: ReducerInputs.floorOutput, now: ReducerInputs.start)
        for _ in benchmark.scaledIterations {
            var state = initial
            for event in events {
                state = KioskState.reduce(state, event)
            }
            blackHole(state)
        }
    }
}

/// Input sequences of 100 steps that exercise every case of each fold and never fail.
enum ReducerInputs {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// Twenty guitars added, raised, lowered, added again, all but one removed, then the cart cleared
    /// (never more than 40 guitars: a cart holds 50 at most).
    static let cartActions: [CartAction] = {
        let guitars = (0..<20).map { Guitar.allConfigurations[$0 * 12] }
        let ids = guitars.map { CartLine.id(for: $0) }
        return guitars.map { .add($0) } + ids.map { .increment(lineID: $0) } + ids.map { .decrement(lineID: $0) }
            + guitars.map { .add($0) } + ids.dropLast().map { .remove(lineID: $0) } + [.clear]
    }()

    /// Mostly picker changes, as customers make them, with the checkout and "Start over" in between.
    static let buildActions: [BuildAction] = (0..<100).map { index in
        switch index % 10 {
        case 3: .checkoutRequested(CheckoutRequest(lines: [CartLine(guitar: .standard, quantity: 1)], source: .builder))
        case 4: .checkoutFailed("The workshop did not answer.")
        case 9: .startOver
        default:
            .change(
                GuitarChange(
                    shape: Shape.allCases[index % Shape.allCases.count],
                    color: index.isMultiple(of: 2) ? Color.allCases[index / 2 % Color.allCases.count] : nil,
                    body: BodyWood.allCases[index / 3 % BodyWood.allCases.count],
                    fretboard: index.isMultiple(of: 3)
                        ? FretboardWood.allCases[index % FretboardWood.allCases.count] : nil
                ))
        }
    }

    static func order(_ index: Int, status: OrderStatus = .woodSelection) -> Order {
        let lines = [CartLine(guitar: Guitar.allConfigurations[index % 256], quantity: 1 + index % 2)]
        let shipping = ShippingMethod.allCases[index % ShippingMethod.allCases.count]
        let quote = Quote(
            lines: lines, shipping: ShippingOption(method: shipping, price: shipping.price), rate: .dollar())
        return Order(
            number: "LU-\(100_000 + index)", accessKey: "key", checkoutID: "checkout-\(index)", lines: lines,
            shipping: shipping, currency: .usd, rate: 1, quote: quote, status: status,
            placedAt: start.addingTimeInterval(Double(index) * 60), sessionKey: "session-\(index)")
    }

    /// The floor loaded with ten orders, sixty orders placed, then the in-progress ones moved on a stage.
    static let floorEvents: [WorkshopFloorState.Event] = {
        let loaded = (0..<10).map { order($0) }
        var events: [WorkshopFloorState.Event] = [
            .loaded(recentOrders: loaded, inProgress: loaded, guitarsOrderedToday: 12, at: start)
        ]
        for index in 10..<70 {
            events.append(.placed(order(index), at: start.addingTimeInterval(Double(index) * 60)))
        }
        for index in 0..<39 {
            let moved = order(index * 2, status: .bodyShaping)
            events.append(.advanced([moved], at: start.addingTimeInterval(Double(70 + index) * 60)))
        }
        return events
    }()

    static let floorOutput: WorkshopFloorOutput = floorEvents.prefix(20)
        .reduce(WorkshopFloorState(now: start), WorkshopFloorState.reduce).output

    /// Builders' guitars, timer ticks (which run the attract loop once nobody builds) and floor updates.
    static let kioskEvents: [KioskState.Event] = (0..<100).map { index in
        switch index % 5 {
        case 0, 1: .built(Guitar.allConfigurations[index * 7 % 256])
        case 2, 3:
            .tick(
                now: start.addingTimeInterval(Double(index)),
                counters: KioskCounters(guitarsInCarts: index, liveSessions: index / 2))
        default: .floor(floorOutput)
        }
    }
}
