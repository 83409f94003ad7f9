import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import TestSupport
import Testing

@testable import LuthierWeb

/// The kiosk's showcase across instances (`ShowcaseRelay`), with a fake `ShowcaseClient` standing
/// for the other instances: what is built elsewhere shows on this kiosk, and what is built here is
/// announced, the newest only, at most every `ShowcaseRelay.interval` of the showroom clock.
@Suite("ShowcaseRelay over HTTP")
struct ShowcaseRelayTests {
    /// The other instances: it records what this one announces, and tells what they build.
    final class OtherInstances: Sendable {
        let announced = Recording<Guitar>()
        let announcedCounters = Recording<KioskCounters>()
        let builtThere: AsyncStream<Guitar>
        let build: AsyncStream<Guitar>.Continuation
        let countersThere: AsyncStream<InstanceCounters>
        let count: AsyncStream<InstanceCounters>.Continuation

        init() {
            (builtThere, build) = AsyncStream.makeStream(of: Guitar.self)
            (countersThere, count) = AsyncStream.makeStream(of: InstanceCounters.self)
        }

        var client: ShowcaseClient {
            ShowcaseClient(
                announce: { guitar in self.announced.append(guitar) },
                builtElsewhere: { self.builtThere },
                announceCounters: { counters in self.announcedCounters.append(counters) },
                countersElsewhere: { self.countersThere })
        }
    }

    static func run(_ others: OtherInstances, _ body: @Sendable (TestApp) async throws -> Void) async throws {
        let shop = try TestShop()
        try await TestApp.run(
            environment: shop.environment(clock:), admin: .live(store: shop.store), showcase: others.client, body)
    }

    @Test("a guitar built on another instance shows on this instance's kiosk")
    func builtElsewhereShowsHere() async throws {
        let others = OtherInstances()
        try await Self.run(others) { app in
            let (kiosk, _, _) = try await KioskControllerTests.openKiosk(app)
            others.build.yield(Guitar(shape: .chunky, color: .earth))
            let shown = try await KioskControllerTests.patch(on: kiosk, "the guitar built elsewhere") {
                $0.html("kiosk-showcase")?.contains("Earth Chunky with Mahogany body and Rosewood fretboard") == true
            }
            #expect(shown.html("kiosk-showcase")?.contains(">Now building</p>") == true)
            // Not announced back: it was not built here.
            #expect(others.announced.values.isEmpty)
            await kiosk.close()
        }
    }

    @Test("a guitar built here is announced at once; a burst after it only by its newest, after the interval")
    func builtHereIsAnnouncedConflated() async throws {
        let others = OtherInstances()
        try await Self.run(others) { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: KioskControllerTests.sky, cookie: cookie).status == 204)
            let sky = Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony)
            #expect(await others.announced.until { $0 == [sky] })
            // The relay sleeps out its interval (with the floor's and the kiosk's timers, and its
            // own counters' timer).
            #expect(await app.showroomClock.untilPending(atLeast: KioskControllerTests.showroomTimers + 2))
            #expect(try await app.scriptPost(form: "shape=chunky", cookie: cookie).status == 204)
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            #expect(others.announced.values == [sky])
            await app.showroomClock.base.advance(by: ShowcaseRelay.interval)
            let longV = Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony)
            #expect(await others.announced.until { $0 == [sky, longV] })
        }
    }

    @Test("the counters are this instance's plus every other's announced within 15 s; its own go out every 5 s")
    func countersAreSummedWhileFresh() async throws {
        let others = OtherInstances()
        let clock = TestClock<Duration>()
        let local = KioskCounters(guitarsInCarts: 1, liveSessions: 4)
        let relay = ShowcaseRelay(
            client: others.client, builtHere: AsyncStream { $0.finish() }, show: { _ in },
            localCounters: { local }, clock: clock)
        let running = Task { await relay.run() }
        defer { running.cancel() }
        others.count.yield(InstanceCounters(instance: "b", counters: KioskCounters(guitarsInCarts: 3, liveSessions: 2)))
        others.count.yield(InstanceCounters(instance: "c", counters: KioskCounters(guitarsInCarts: 0, liveSessions: 1)))
        #expect(await within { _ = await relay.waitUntil { $0 == 2 } })
        #expect(relay.counters() == KioskCounters(guitarsInCarts: 4, liveSessions: 7))
        // Five seconds on: this instance's own are announced.
        await clock.advance(by: ShowcaseRelay.countersInterval)
        #expect(await others.announcedCounters.until { $0 == [local] })
        // "b" announces again; "c" falls silent and, past 15 s, out of the sum.
        await clock.advance(by: .seconds(6))
        others.count.yield(InstanceCounters(instance: "b", counters: KioskCounters(guitarsInCarts: 2, liveSessions: 2)))
        #expect(await within { _ = await relay.waitUntil { $0 == 3 } })
        #expect(relay.counters() == KioskCounters(guitarsInCarts: 3, liveSessions: 7))
        await clock.advance(by: .seconds(5))
        #expect(relay.counters() == KioskCounters(guitarsInCarts: 3, liveSessions: 6))
    }
}
