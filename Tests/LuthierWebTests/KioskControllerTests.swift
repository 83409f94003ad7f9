import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import LuthierWeb
@testable import SQLMachinery

/// The kiosk and the order pages' streams over real HTTP: the real application on the real
/// workshop (SQLite), the kiosk and the workshop floor on `app.showroomClock`.
@Suite("KioskController over HTTP")
struct KioskControllerTests {
    static let kioskTargets = ["kiosk-showcase", "kiosk-orders", "kiosk-board", "kiosk-counters", "journal-stories"]
    static let sky = "shape=sharpV&color=sky&body=koa&fretboard=ebony"
    static let skyDescription = "Sky Sharp V with Koa body and Ebony fretboard"
    static let skyCard = "Sky Sharp V · Koa"

    // MARK: helpers

    /// Opens `GET path` as an event stream (no cookie unless given) and reads its head.
    static func openStream(_ app: TestApp, _ path: String, cookie: String? = nil) async throws -> EventStreamClient {
        let headers = cookie.map { [(name: "Cookie", value: "\(TestApp.cookieName)=\($0)")] } ?? []
        let connection = try await HTTPTestConnection.open(
            port: app.port, request: TestRequest(method: .GET, path: path, headers: app.jar.rewrite(headers)))
        let head = try await connection.head()
        return EventStreamClient(connection: connection, head: head)
    }

    /// Opens a kiosk stream and reads its opening: the `retry:` hint, then the full patch.
    static func openKiosk(_ app: TestApp) async throws -> (stream: EventStreamClient, retry: Int, patch: Patch) {
        let stream = try await openStream(app, "/kiosk/events")
        try #require(stream.head.status.code == 200)
        let retryEvent = try await stream.nextEvent()
        let retry = try #require(retryEvent.retry.flatMap { Int($0) }, "\(retryEvent)")
        let (_, patch) = try await stream.nextPatch()
        return (stream, retry, patch)
    }

    /// Reads patches until one satisfies `accept` (skipping heartbeats and other changes).
    static func patch(
        on stream: EventStreamClient, _ what: String, where accept: (Patch) -> Bool
    ) async throws -> Patch {
        var seen: [Patch] = []
        for _ in 0..<50 {
            let event = try await stream.nextEvent()
            guard event.event == "patch" else { continue }
            let patch = stream.shown(try event.patch())
            if accept(patch) { return patch }
            seen.append(patch)
        }
        throw NotSeen(what: what, seen: seen)
    }

    struct NotSeen: Error, CustomStringConvertible {
        let what: String
        let seen: [Patch]
        var description: String { "Never saw \(what) on the stream; saw \(seen.map(\.targets))" }
    }

    /// The kiosk's feed, floor and their own readers asleep on the showroom clock: the floor's
    /// stage timer (or its retry), the feed's tick and the journal reader's refresh.
    static let showroomTimers = 3

    /// Moves the showroom clock on by `duration` (deadline by deadline), once its timers sleep.
    static func advanceShowroom(_ app: TestApp, by duration: Duration) async throws {
        let asleep = await app.showroomClock.untilPending(atLeast: showroomTimers)
        try #require(asleep, "the floor and the kiosk's tick never slept on the showroom clock")
        await app.showroomClock.base.advance(by: duration)
    }

    /// Builds a guitar, checks out and orders it (the builder's way, posts as the page's script
    /// sends them); returns the session, the order number and its key.
    static func placeOrder(
        _ app: TestApp, shop: TestShop, guitar: String = sky
    ) async throws -> (cookie: String, number: String, key: String) {
        let cookie = try await CheckoutControllerTests.checkedOut(app, guitar: guitar)
        let (number, _) = try await CheckoutControllerTests.order(app, cookie: cookie)
        let key = try #require(try await shop.store.order(number: number)?.accessKey)
        return (cookie, number, key)
    }

    /// The kiosk board as a patch or page shows it: column id → (count, cards).
    static func board(_ html: String?) -> [String: (count: Int, cards: [String])] {
        var columns: [String: (count: Int, cards: [String])] = [:]
        let column = /id="board-([A-Za-z]+)"><h3>[^<]*<span class="kiosk-count">(\d+)<\/span><\/h3><ul>(.*?)<\/ul>/
        for match in (html ?? "").matches(of: column) {
            let cards = String(match.output.3).matches(of: /<li class="kiosk-card">([^<]*)<\/li>/).map {
                String($0.output.1)
            }
            columns[String(match.output.1)] = (Int(match.output.2) ?? -1, cards)
        }
        return columns
    }

    /// The cards of each column, in board order.
    static func boardCards(_ html: String?) -> [[String]] {
        let columns = board(html)
        return ["woodSelection", "bodyShaping", "finishing", "setup"].map { columns[$0]?.cards ?? ["<missing>"] }
    }

    /// The counters: ordered-today, in-carts, sessions.
    static func counters(_ html: String?) -> [String: String] {
        var values: [String: String] = [:]
        for match in (html ?? "").matches(of: /id="counter-([a-z-]+)">([^<]*)</) {
            values[String(match.output.1)] = String(match.output.2)
        }
        return values
    }

    struct OrderRow: Equatable {
        var description: String
        var amount: String
        var ago: String
    }

    static func orderRows(_ html: String?) -> [OrderRow] {
        let row =
            /<li class="kiosk-order" id="kiosk-order-[0-9-]+"><span class="kiosk-order-description">([^<]*)<\/span><span class="kiosk-order-amount">([^<]*)<\/span><span class="kiosk-order-ago">([^<]*)<\/span><\/li>/
        return (html ?? "").matches(of: row).map {
            OrderRow(description: String($0.output.1), amount: String($0.output.2), ago: String($0.output.3))
        }
    }

    /// What an order's stages fragment says the order is at.
    static func status(_ html: String?) -> String? {
        (html ?? "").firstMatch(of: /<p id="order-status" class="status">([^<]*)<\/p>/).map { String($0.output.1) }
    }

    /// The showroom's wall clock: the shop's fixed time plus however far `app.showroomClock` has
    /// moved, so that the workshop floor, which reads the time to decide what is due, moves its
    /// stages when the test moves the clock.
    final class ShowroomTime: Sendable {
        private let clock = Mutex<(clock: WatchedTestClock, start: WatchedTestClock.Instant)?>(nil)

        func follow(_ clock: WatchedTestClock) {
            self.clock.withLock { $0 = (clock, clock.now) }
        }

        func now() -> Date {
            guard let (clock, start) = clock.withLock({ $0 }) else { return TestShop.now }
            let (seconds, attoseconds) = start.duration(to: clock.now).components
            return TestShop.now.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
        }
    }

    /// `TestShop.run`, with the showroom's wall clock following `app.showroomClock`.
    static func runMovingShop(
        configure: @escaping @Sendable (inout LuthierConfiguration) -> Void = { _ in },
        _ body: @Sendable (TestApp, TestShop) async throws -> Void
    ) async throws {
        let shop = try TestShop()
        let time = ShowroomTime()
        try await TestApp.run(
            configure: configure,
            environment: { clock in
                var environment = shop.environment(clock: clock)
                environment.now = { time.now() }
                return environment
            },
            admin: .live(store: shop.store)
        ) { app in
            time.follow(app.showroomClock)
            try await body(app, shop)
        }
    }

    // MARK: 1. The page and the stream's opening

    @Test("GET /kiosk renders the page without a session, with the same fragments its stream opens with")
    func page() async throws {
        try await TestShop.run { app, _ in
            let response = try await app.get("/kiosk")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.headers["Set-Cookie"].isEmpty)
            #expect(app.services.registry.count == 0)
            let html = response.text
            #expect(html.contains(/<body data-version="\d+" class="kiosk" data-events="\/kiosk\/events">/))
            for target in Self.kioskTargets {
                #expect(html.contains("id=\"\(target)\""), "\(target)")
            }
            // Nobody has built yet: the attract loop's first guitar, an empty workshop.
            #expect(html.contains("From the workshop"))
            #expect(html.contains(KioskState.attractGuitars[0].description))
            #expect(html.contains("The first order of the day is yet to come."))
            #expect(Self.boardCards(html) == [[], [], [], []])
            #expect(Self.counters(html) == ["ordered-today": "0", "in-carts": "0", "sessions": "0"])

            let (stream, _, patch) = try await Self.openKiosk(app)
            #expect(patch.targets == Self.kioskTargets)
            for fragment in patch.fragments {
                #expect(html.contains(fragment.html), "\(fragment.target)")
            }
            await stream.close()

            // A visitor with a session opens the kiosk too: nothing is set or created for it.
            let cookie = try await app.newSession()
            let again = try await app.get("/kiosk", cookie: cookie)
            #expect(again.status == 200)
            #expect(again.headers["Set-Cookie"].isEmpty)
            #expect(app.services.registry.count == 1)
        }
    }

    @Test("GET /kiosk/events opens with a retry between the reconnect delay and twice it, then all four targets")
    func streamOpening() async throws {
        try await TestShop.run(configure: { $0.reconnectDelayMilliseconds = 1_000 }) { app, _ in
            var retries: Set<Int> = []
            for _ in 0..<20 {
                let (stream, retry, patch) = try await Self.openKiosk(app)
                #expect(stream.head.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
                #expect(stream.head.headers.first(name: "Cache-Control") == "no-cache, no-transform")
                #expect(stream.head.headers["Set-Cookie"].isEmpty)
                #expect((1_000...2_000).contains(retry), "retry: \(retry)")
                #expect(patch.targets == Self.kioskTargets)
                #expect(patch.html("kiosk-showcase")?.contains("From the workshop") == true)
                retries.insert(retry)
                await stream.close()
            }
            // Randomised, so that screens reconnecting after a restart spread out.
            #expect(retries.count > 1)
            #expect(app.services.registry.count == 0)
            #expect(await app.streams { $0.open == 0 })
        }
    }

    // MARK: 2. Builders and orders on the kiosk

    @Test("a builder's guitar shows on an open kiosk as Now building; an order shows in the orders, board and counters")
    func builderAndOrder() async throws {
        try await TestShop.run { app, shop in
            let (kiosk, _, opening) = try await Self.openKiosk(app)
            #expect(Self.orderRows(opening.html("kiosk-orders")).isEmpty)

            // A builder changes their guitar: the kiosk shows it at once.
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: Self.sky, cookie: cookie).status == 204)
            let building = try await Self.patch(on: kiosk, "the builder's guitar") {
                $0.html("kiosk-showcase")?.contains(Self.skyDescription) == true
            }
            let showcase = try #require(building.html("kiosk-showcase"))
            #expect(showcase.contains(">Now building</p>"))
            #expect(showcase.contains("id=\"kiosk-description\">\(Self.skyDescription)</p>"))
            #expect(showcase.contains("id=\"kiosk-price\">$2,450</p>"))
            #expect(
                showcase.contains("data-shape=\"sharpV\" data-color=\"sky\" data-body=\"koa\" data-fretboard=\"ebony\"")
            )
            #expect(!showcase.contains("attract"))
            // Only the showcase changed.
            #expect(building.targets == ["kiosk-showcase"])

            // A second builder within the throttle's interval shows once the interval is over.
            let other = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=chunky&color=earth", cookie: other).status == 204)
            try await Self.advanceShowroom(app, by: KioskFeature.throttleInterval)
            _ = try await Self.patch(on: kiosk, "the second builder's guitar") {
                $0.html("kiosk-showcase")?.contains("Earth Chunky with Mahogany body and Rosewood fretboard") == true
            }

            // A guitar in a cart: the counters show it on the next tick.
            #expect(try await app.scriptPost("/cart/items", form: "", cookie: other).status == 204)
            try await Self.advanceShowroom(app, by: KioskFeature.tickInterval)
            let counted = try await Self.patch(on: kiosk, "the counters after a tick") {
                Self.counters($0.html("kiosk-counters"))["in-carts"] == "1"
            }
            #expect(
                Self.counters(counted.html("kiosk-counters")) == [
                    "ordered-today": "0", "in-carts": "1", "sessions": "2",
                ])

            // The first builder orders: the order is on the kiosk at once, without a tick.
            let checkout = try await app.scriptPost("/checkout", form: "", cookie: cookie)
            #expect(checkout.status == 204)
            let ordered = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(ordered.status == 204)
            let placed = try await Self.patch(on: kiosk, "the order") { patch in
                patch.html("kiosk-orders") != nil
            }
            #expect(
                Self.orderRows(placed.html("kiosk-orders")) == [
                    OrderRow(description: Self.skyDescription, amount: "$2,450", ago: "just now")
                ])
            #expect(Self.boardCards(placed.html("kiosk-board")) == [[Self.skyCard], [], [], []])
            #expect(Self.board(placed.html("kiosk-board"))["woodSelection"]?.count == 1)
            #expect(Self.counters(placed.html("kiosk-counters"))["ordered-today"] == "1")
            // The kiosk shows nothing that identifies the order or its customer.
            let number = try #require(try await shop.store.recentOrders(limit: 1).first?.number)
            let key = try #require(try await shop.store.order(number: number)?.accessKey)
            for fragment in placed.fragments {
                #expect(!fragment.html.contains(number))
                #expect(!fragment.html.contains(key))
            }
            // And a kiosk opened now starts from all of it.
            let page = try await app.get("/kiosk")
            #expect(Self.orderRows(page.text).map(\.description) == [Self.skyDescription])
            #expect(Self.boardCards(page.text) == [[Self.skyCard], [], [], []])
            #expect(Self.counters(page.text) == ["ordered-today": "1", "in-carts": "1", "sessions": "2"])
            await kiosk.close()
        }
    }

    // MARK: 3. Stages on the kiosk and on the order page

    @Test("at the configured pace the order moves one stage per pace, on the kiosk board and on the order's stream")
    func stagesMove() async throws {
        try await Self.runMovingShop(configure: { $0.workshopPace = WorkshopPace(perStage: .seconds(10)) }) {
            app, shop in
            let (kiosk, _, _) = try await Self.openKiosk(app)
            let (_, number, key) = try await Self.placeOrder(app, shop: shop)
            _ = try await Self.patch(on: kiosk, "the order on the board") {
                Self.boardCards($0.html("kiosk-board")) == [[Self.skyCard], [], [], []]
            }

            // The order page names its own stream, with the key it was opened with.
            let page = try await app.get("/orders/\(number)?key=\(key)")
            #expect(page.status == 200)
            #expect(page.text.contains("data-events=\"/orders/\(number)/events?key=\(key)\""))
            #expect(Self.status(page.text) == "Wood selection")

            let orderStream = try await Self.openStream(app, "/orders/\(number)/events?key=\(key)")
            #expect(orderStream.head.status.code == 200)
            #expect(orderStream.head.headers["Set-Cookie"].isEmpty)
            let retry = try await orderStream.nextEvent()
            #expect(retry == ReceivedEvent(retry: String(app.configuration.reconnectDelayMilliseconds)))
            let (_, opening) = try await orderStream.nextPatch()
            #expect(opening.targets == ["order-stages"])
            #expect(Self.status(opening.html("order-stages")) == "Wood selection")
            #expect(opening.html("order-stages")?.contains("aria-current=\"step\"") == true)
            let pageStages = try #require(opening.html("order-stages"))
            #expect(page.text.contains(pageStages))

            // Pickup (the checkout's default): four more stages, one per ten seconds.
            let stages: [(status: String, column: Int?)] = [
                ("Body shaping", 1), ("Finishing", 2), ("Setup", 3), ("Ready for pickup", nil),
            ]
            for (index, stage) in stages.enumerated() {
                // Halfway through the pace the workshop is still at the previous stage…
                try await Self.advanceShowroom(app, by: .seconds(5))
                let stored = try #require(try await shop.store.order(number: number))
                #expect(stored.status.label == (index == 0 ? "Wood selection" : stages[index - 1].status))
                // …and when the pace is over it has moved exactly one stage.
                try await Self.advanceShowroom(app, by: .seconds(5))
                let (_, moved) = try await orderStream.nextPatch()
                #expect(moved.targets == ["order-stages"])
                #expect(Self.status(moved.html("order-stages")) == stage.status, "after \(index + 1) paces")
                var expected: [[String]] = [[], [], [], []]
                if let column = stage.column { expected[column] = [Self.skyCard] }
                _ = try await Self.patch(on: kiosk, "the card in \(stage.status)") {
                    Self.boardCards($0.html("kiosk-board")) == expected
                }
                let reloaded = try await app.get("/orders/\(number)?key=\(key)")
                #expect(Self.status(reloaded.text) == stage.status)
            }
            // Finished: off the board, still among the latest orders; the kiosk counts it today.
            let kioskPage = try await app.get("/kiosk")
            #expect(Self.boardCards(kioskPage.text) == [[], [], [], []])
            #expect(Self.orderRows(kioskPage.text).map(\.description) == [Self.skyDescription])
            #expect(Self.counters(kioskPage.text)["ordered-today"] == "1")
            #expect(try await shop.store.order(number: number)?.status == .readyForPickup)

            // Nothing more happens to it, however long the clock runs.
            try await Self.advanceShowroom(app, by: .seconds(30))
            #expect(try await shop.store.order(number: number)?.status == .readyForPickup)
            await orderStream.close()
            await kiosk.close()
        }
    }

    @Test("the order's stream is refused without the session or the key, like its page")
    func orderStreamAccess() async throws {
        try await TestShop.run { app, shop in
            let (cookie, number, key) = try await Self.placeOrder(app, shop: shop)
            // Its own session may follow it without the key.
            let own = try await Self.openStream(app, "/orders/\(number)/events", cookie: cookie)
            #expect(own.head.status.code == 200)
            _ = try await own.nextEvent()
            let (_, patch) = try await own.nextPatch()
            #expect(Self.status(patch.html("order-stages")) == "Wood selection")
            await own.close()

            let other = try await app.newSession()
            for (path, cookie) in [
                ("/orders/\(number)/events", nil), ("/orders/\(number)/events", other),
                ("/orders/\(number)/events?key=\(key.dropLast())", nil), ("/orders/LU-222222/events?key=\(key)", nil),
            ] as [(String, String?)] {
                let response = try await app.get(path, cookie: cookie)
                #expect(response.status == 404, "\(path)")
                #expect(response.header("Content-Type")?.hasPrefix("text/event-stream") != true)
            }
            #expect(await app.streams { $0.open == 0 })
        }
    }

    // MARK: 4. The renderer

    @Test("the kiosk's fragments catch up with a feed that changed before the renderer started")
    func rendererStartsFromTheRenderedFragments() async throws {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        let environment = LuthierEnvironment.webTest(clock: WatchedTestClock())
        let (floor, floorInput) = AsyncStream<WorkshopFloorOutput>.makeStream()
        let workshopFloor = WorkshopFloor(environment: environment, pace: .days)
        let showroom = Showroom(
            floor: workshopFloor,
            feed: KioskFeed(
                environment: environment, floor: workshopFloor.currentOutput, floorOutputs: { floor },
                builds: KioskFeed.builderInput().builds, counters: { KioskCounters() }),
            journal: JournalFeed(news: .failing, clock: environment.clock),
            renderer: renderer)
        let rendered = showroom.kioskFragments.changes(since: 0).fragments
        #expect(rendered.map(\.target) == Self.kioskTargets)

        // The floor loads an order before the renderer has started (a server restarted with
        // orders, on a busy machine): the feed has it, the rendered fragments do not yet.
        let request = OrderRequest(
            checkoutID: "checkout-1", guitar: Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony),
            shipping: ShippingOption(method: .pickup, price: ShippingMethod.pickup.price), rate: .dollar(),
            sessionKey: "a session")
        let order = Order(
            number: "LU-RESTRT", accessKey: "key", checkoutID: request.checkoutID, lines: request.lines,
            shipping: .pickup, currency: .usd, rate: 1, quote: request.quote, placedAt: TestShop.now,
            sessionKey: request.sessionKey)
        floorInput.yield(
            WorkshopFloorOutput(
                recentOrders: [order], inProgress: [order], guitarsOrderedToday: 1, updatedAt: TestShop.now))
        let feed = Task { await showroom.feed.run() }
        defer { feed.cancel() }
        #expect(await firstValue(of: showroom.feed.outputs()) { $0.guitarsOrderedToday == 1 })

        // Once the renderer runs, every stream's fragments show the order, like the page does.
        let rendering = Task { await showroom.renderKiosk() }
        defer { rendering.cancel() }
        let caughtUp = await showroom.kioskFragments.until { fragments in
            Self.orderRows(fragments.changes(since: 0).fragments.first { $0.target == "kiosk-orders" }?.html)
                .map(\.description) == [Self.skyDescription]
        }
        #expect(caughtUp, "the kiosk streams still show the workshop as it was before the floor loaded")
        let board = showroom.kioskFragments.changes(since: 0).fragments.first { $0.target == "kiosk-board" }?.html
        #expect(Self.boardCards(board) == [[Self.skyCard], [], [], []])
        showroom.close()
    }

    // MARK: 5. Nothing leaks

    enum CloseMode: CaseIterable, Sendable { case full, halfClose, beforeReading }

    /// Opens a stream at `path`, reads its opening (unless closing before reading) and closes it as
    /// `mode` says.
    static func cycle(_ app: TestApp, _ path: String, _ mode: CloseMode) async throws {
        let connection = try await HTTPTestConnection.open(
            port: app.port, request: TestRequest(method: .GET, path: path))
        switch mode {
        case .beforeReading:
            try await connection.requestSent()
            await connection.close()
        case .full, .halfClose:
            let stream = EventStreamClient(connection: connection, head: try await connection.head())
            try #require(stream.head.status.code == 200)
            _ = try await stream.nextEvent()
            _ = try await stream.nextPatch()
            if mode == .halfClose {
                try await connection.closeOutput()
                // The server ends the response it was streaming.
                while try await stream.next() != nil {}
            }
            await stream.close()
        }
    }

    @Test("opening and closing 200 kiosk streams and 100 order streams, several at a time, leaves nothing behind")
    func noLeaks() async throws {
        try await TestShop.run { app, shop in
            let showroom = app.services.showroom
            // The renderer follows the feed, and the feed follows the floor, from the start.
            #expect(await within { _ = await showroom.feed.untilSubscribers { $0 >= 1 } })
            #expect(await within { _ = await showroom.floor.untilSubscribers { $0 >= 1 } })
            let feedReaders = showroom.feed.subscriberCount
            let floorReaders = showroom.floor.subscriberCount
            #expect(feedReaders == 1)
            #expect(floorReaders == 1)
            let (_, number, key) = try await Self.placeOrder(app, shop: shop)

            let modes = CloseMode.allCases
            for round in 0..<25 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for slot in 0..<8 {
                        let mode = modes[(round + slot) % modes.count]
                        group.addTask { try await Self.cycle(app, "/kiosk/events", mode) }
                        if slot % 2 == 0 {
                            group.addTask { try await Self.cycle(app, "/orders/\(number)/events?key=\(key)", mode) }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(await app.streams { $0.open == 0 }, "\(app.services.hub.openStreams) open")
            #expect(await within { _ = await showroom.kioskFragments.waitUntil({ $0 == 0 }) })
            #expect(
                await within { _ = await showroom.floor.untilSubscribers { $0 == floorReaders } },
                "\(showroom.floor.subscriberCount)")
            #expect(showroom.feed.subscriberCount == feedReaders)
            #expect(app.services.registry.count == 1)

            // And everything still works afterwards.
            let (kiosk, _, patch) = try await Self.openKiosk(app)
            #expect(Self.orderRows(patch.html("kiosk-orders")).count == 1)
            #expect(showroom.kioskFragments.subscriberCount == 1)
            await kiosk.close()
            #expect(await within { _ = await showroom.kioskFragments.waitUntil({ $0 == 0 }) })
        }
    }

    @Test("graceful shutdown ends every open kiosk stream and order stream")
    func gracefulShutdown() async throws {
        try await TestShop.run { app, shop in
            let (_, number, key) = try await Self.placeOrder(app, shop: shop)
            var kiosks: [EventStreamClient] = []
            for _ in 0..<3 {
                kiosks.append(try await Self.openKiosk(app).stream)
            }
            let order = try await Self.openStream(app, "/orders/\(number)/events?key=\(key)")
            _ = try await order.nextEvent()
            _ = try await order.nextPatch()
            #expect(app.services.hub.openStreams == 4)

            await app.shutdown()
            for stream in kiosks + [order] {
                var ended = false
                var hinted = false
                for _ in 0..<10 {
                    guard let event = try await stream.next() else {
                        ended = true
                        break
                    }
                    if event.retry != nil { hinted = true }
                }
                #expect(ended, "the stream did not end")
                #expect(hinted, "the stream ended without a reconnect hint")
                await stream.close()
            }
            #expect(await app.streams { $0.open == 0 })
            #expect(await within { _ = await app.services.showroom.kioskFragments.waitUntil({ $0 == 0 }) })
            #expect(await within { _ = await app.services.showroom.floor.untilSubscribers { $0 == 0 } })
            #expect(await within { _ = await app.services.showroom.feed.untilSubscribers { $0 == 0 } })
        }
    }
}
