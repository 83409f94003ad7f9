import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive
import LuthierWeb
import ServerMachinery
import Synchronization
import TestSupport
@testable import SQLMachinery

/// The shop behind the checkout tests: the real workshop on a private in-memory SQLite store and
/// the embedded exchange rates, with the three checkout calls counted and, when `gated`, held at a
/// gate until the test opens it.
final class TestShop: Sendable {
    /// How many times each of the three checkout calls ran.
    struct Calls: Equatable, Sendable, CustomStringConvertible {
        var availability = 0
        var estimate = 0
        var shippingOptions = 0

        var description: String { "\(availability)/\(estimate)/\(shippingOptions)" }
    }

    /// The one wall-clock time of the shop: orders, sessions and their expiry all read it.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    let store: WorkshopStore
    let gate: Gate
    /// Holds each order placed until the test opens it (open unless the shop is made `ordersGated`).
    let orderGate: Gate
    private let counts = Mutex(Calls())
    private let madeIDs = Mutex(0)

    /// - Parameter path: the SQLite file (a restart test opens the same one twice); in memory by default.
    init(gated: Bool = false, ordersGated: Bool = false, path: String = ":memory:") throws {
        store = try WorkshopStore(path: path, now: { Self.now })
        gate = Gate(isOpen: !gated)
        orderGate = Gate(isOpen: !ordersGated)
    }

    var calls: Calls { counts.withLock { $0 } }

    /// Checkouts made (each gets an id).
    var checkoutsMade: Int { madeIDs.withLock { $0 } }

    /// The environment the application runs with, on the test clock.
    func environment(clock: WatchedTestClock) -> LuthierEnvironment {
        let live = WorkshopClient.live(store: store, clock: clock, simulatedLatency: false)
        var workshop = live
        workshop.availability = { [self] lines in
            counts.withLock { $0.availability += 1 }
            await gate.wait()
            return try await live.availability(lines)
        }
        workshop.estimate = { [self] lines in
            counts.withLock { $0.estimate += 1 }
            await gate.wait()
            return try await live.estimate(lines)
        }
        workshop.shippingOptions = { [self] lines in
            counts.withLock { $0.shippingOptions += 1 }
            await gate.wait()
            return try await live.shippingOptions(lines)
        }
        workshop.placeOrder = { [self] request in
            await orderGate.wait()
            return try await live.placeOrder(request)
        }
        // The live workshop answers a checkout's three questions in one read: counted as each.
        workshop.answersTogether = { [self] lines in
            counts.withLock { calls in
                calls.availability += 1
                calls.estimate += 1
                calls.shippingOptions += 1
            }
            await gate.wait()
            return try await live.answers(for: lines)
        }
        return LuthierEnvironment(
            clock: clock,
            now: { Self.now },
            workshop: workshop,
            // As of the shop's fixed time, so that a recorded session is the same on every run.
            exchangeRates: .embedded(now: { Self.now }),
            sessions: .live(store: store),
            analytics: .live(store: store),
            makeID: { [self] in
                madeIDs.withLock { count in
                    count += 1
                    return "checkout-\(count)"
                }
            }
        )
    }

    /// Runs `body` against the real application on a fresh shop; the gate is opened before the
    /// application stops, so that no request is left waiting on it.
    static func run(
        gated: Bool = false,
        ordersGated: Bool = false,
        configure: (inout LuthierConfiguration) -> Void = { _ in },
        log: LogCapture? = nil,
        _ body: @Sendable (TestApp, TestShop) async throws -> Void
    ) async throws {
        let shop = try TestShop(gated: gated, ordersGated: ordersGated)
        try await TestApp.run(
            configure: configure, environment: shop.environment(clock:), admin: .live(store: shop.store), log: log
        ) { app in
            defer {
                shop.gate.open()
                shop.orderGate.open()
            }
            try await body(app, shop)
        }
    }
}

/// Holds whoever waits on it until it is opened; once open, it lets everyone through.
final class Gate: ConditionWatched {
    private struct State {
        var isOpen: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Tests waiting in `until(waiting:)` for as many to be held.
        var watchers = ConditionWaiters<Int>()
    }

    private let state: Mutex<State>

    init(isOpen: Bool) {
        state = Mutex(State(isOpen: isOpen))
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (passes, met) = state.withLock { state in
                if state.isOpen { return (true, [CheckedContinuation<Bool, Never>]()) }
                state.waiters.append(continuation)
                return (false, state.watchers.satisfied(by: state.waiters.count))
            }
            if passes { continuation.resume() }
            for watcher in met { watcher.resume(returning: true) }
        }
    }

    /// How many are waiting now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// True once `count` are held at the gate (told as each arrives); false after `limit`.
    func until(waiting count: Int, within limit: Duration = .seconds(5)) async -> Bool {
        await within(limit) { _ = await self.waitUntil { $0 >= count } }
    }

    func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Int>, Int) -> Result) -> Result {
        state.withLock { state in
            let waiting = state.waiters.count
            return body(&state.watchers, waiting)
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
