import LuthierDomain
import LuthierFeatures
import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// `GET /events` over real sockets, read as the bytes arrive.
@Suite("EventStreamConnection over a socket")
struct EventStreamConnectionTests {
    /// The builder page's fragments.
    static let builderTargets = [
        "guitar-picture", "guitar-description", "guitar-price",
        "picker-shape", "picker-color", "picker-body", "picker-fretboard",
        "checkout-action",
    ]

    /// Every fragment a new session's stream opens with: the builder's, then the cart's (the badge
    /// is on every page; the rest are the cart page's, ignored by pages without those elements).
    static let allTargets = builderTargets + ["cart-badge", "cart-lines", "cart-summary", "cart-actions"]

    /// Opens a stream and reads its opening: the `retry:` hint, then the full patch.
    static func openAndReadOpening(
        _ app: TestApp,
        cookie: String,
        headers: [(name: String, value: String)] = []
    ) async throws -> (stream: EventStreamClient, id: Int, patch: Patch) {
        let stream = try await app.openEventStream(cookie: cookie, headers: headers)
        #expect(stream.head.status.code == 200)
        let retry = try await stream.nextEvent()
        #expect(retry == ReceivedEvent(retry: String(app.configuration.reconnectDelayMilliseconds)))
        let (id, patch) = try await stream.nextPatch()
        return (stream, id, patch)
    }

    @Test("without a session the stream is refused with 403 and a message")
    func noSession() async throws {
        try await TestApp.run { app in
            for cookie in [nil, "abc", String(repeating: "c", count: 64)] {
                let response = try await app.get("/events", cookie: cookie)
                #expect(response.status == 403)
                #expect(response.text.contains("No live session"))
                #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
                #expect(response.headers["Set-Cookie"].isEmpty)
            }
            #expect(app.services.registry.count == 0)
            #expect(app.services.hub.openStreams == 0)
        }
    }

    @Test("headers: an uncached, unbuffered event stream, plain unless gzip is accepted")
    func headers() async throws {
        try await TestApp.run(configure: { $0.reconnectDelayMilliseconds = 1_234 }) { app in
            let cookie = try await app.newSession()
            for (accepts, encoding) in [(nil, nil), ("gzip, deflate, br", "gzip"), ("gzip;q=0", nil)]
                as [(String?, String?)]
            {
                let (stream, _, _) = try await Self.openAndReadOpening(
                    app,
                    cookie: cookie,
                    headers: (accepts.map { [("Accept-Encoding", $0)] } ?? []) + [("Accept", "text/event-stream")]
                )
                let head = stream.head
                #expect(head.headers.first(name: "Content-Type")?.hasPrefix("text/event-stream") == true)
                #expect(head.headers.first(name: "Cache-Control") == "no-cache, no-transform")
                #expect(head.headers.first(name: "X-Accel-Buffering") == "no")
                #expect(head.headers.first(name: "Content-Encoding") == encoding)
                #expect(head.headers.first(name: "Vary") == "Accept-Encoding")
                #expect(head.headers["Content-Length"].isEmpty)
                #expect(head.headers["Set-Cookie"].isEmpty)
                await stream.close()
            }
        }
    }

    @Test("a gzip stream: each event readable as it arrives, a change in under half the bytes, a clean end")
    func compressedStream() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let gzip = [("Accept-Encoding", "gzip, deflate, br")]
            let plain = try await app.openEventStream(cookie: cookie)
            let compressed = try await app.openEventStream(cookie: cookie, headers: gzip)
            for stream in [plain, compressed] {
                _ = try await stream.nextEvent()
                _ = try await stream.nextPatch()
            }
            let (plainBefore, compressedBefore) = (plain.bytesReceived, compressed.bytesReceived)
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let (plainID, plainPatch) = try await plain.nextPatch()
            let (compressedID, compressedPatch) = try await compressed.nextPatch()
            #expect(compressedID == plainID)
            #expect(compressedPatch == plainPatch)
            #expect(compressedPatch.html("guitar-description")?.hasPrefix("Sky") == true)
            let plainBytes = plain.bytesReceived - plainBefore
            let compressedBytes = compressed.bytesReceived - compressedBefore
            #expect(compressedBytes * 2 < plainBytes, "\(compressedBytes) bytes compressed, \(plainBytes) plain")
            // At shutdown the stream says when to come back and ends with gzip's trailer, which
            // the inflater checks (a wrong checksum or length would throw here).
            await app.shutdown()
            let stopping = try await compressed.nextEvent()
            #expect(stopping.retry != nil)
            #expect(try await compressed.next() == nil)
            await plain.close()
            await compressed.close()
        }
    }

    @Test("the opening: retry, then one patch with every fragment as the page shows it")
    func opening() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, id, patch) = try await Self.openAndReadOpening(app, cookie: cookie)
            #expect(id >= 1)
            #expect(patch.targets == Self.allTargets)
            #expect(patch.html("guitar-description") == "Natural Casual with Mahogany body and Rosewood fretboard")
            #expect(patch.html("guitar-price") == "$2,000")
            #expect(patch.html("checkout-action")?.contains(">Checkout ($2,000)</button>") == true)
            #expect(patch.html("picker-shape")?.contains("Long V (+$75)") == true)
            #expect(patch.html("picker-shape")?.contains("value=\"casual\" checked") == true)
            #expect(patch.html("guitar-picture") == GuitarArtwork(guitar: .standard).image)
            // Each page embeds exactly the same fragments as the stream sends for it.
            let page = try await app.page(cookie: cookie)
            for fragment in patch.fragments where Self.builderTargets.contains(fragment.target) {
                #expect(page.html.contains(fragment.html), "\(fragment.target)")
            }
            let cartPage = try await app.get("/cart", cookie: cookie).text
            for fragment in patch.fragments where fragment.target.hasPrefix("cart-") {
                #expect(cartPage.contains(fragment.html), "\(fragment.target)")
            }
            await stream.close()
        }
    }

    @Test("a change arrives as one patch with only the changed fragments, at a higher id")
    func changeArrives() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, openingID, _) = try await Self.openAndReadOpening(app, cookie: cookie)

            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let (firstID, first) = try await stream.nextPatch()
            #expect(firstID > openingID)
            #expect(
                first.targets == [
                    "guitar-picture", "guitar-description", "guitar-price", "picker-shape", "checkout-action",
                ]
            )
            #expect(first.html("guitar-description") == "Natural Long V with Mahogany body and Rosewood fretboard")
            #expect(first.html("guitar-price") == "$2,075")
            #expect(first.html("checkout-action")?.contains(">Checkout ($2,075)</button>") == true)
            #expect(first.html("picker-shape")?.contains("value=\"longV\" checked") == true)
            #expect(first.html("picker-shape")?.contains("value=\"casual\" checked") == false)

            // A colour with no surcharge: the price and checkout fragments stay out.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            let (secondID, second) = try await stream.nextPatch()
            #expect(secondID > firstID)
            #expect(second.targets == ["guitar-picture", "guitar-description", "picker-color"])
            #expect(second.html("guitar-description") == "Dusk Long V with Mahogany body and Rosewood fretboard")

            // Start over through a plain form post.
            #expect(try await app.post("/build/reset", form: "", cookie: cookie).status == 303)
            let (thirdID, third) = try await stream.nextPatch()
            #expect(thirdID > secondID)
            #expect(third.html("checkout-action")?.contains(">Checkout ($2,000)</button>") == true)
            #expect(Set(third.targets).isSubset(of: Set(Self.allTargets)))
            #expect(!third.targets.contains("picker-body") && !third.targets.contains("picker-fretboard"))
            await stream.close()
        }
    }

    @Test("a refused post sends nothing on the stream")
    func refusedPostIsSilent() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            #expect(try await app.scriptPost(form: "shape=longV&color=plaid", cookie: cookie).status == 422)
            #expect(try await app.scriptPost(form: "shape=chunky", cookie: cookie).status == 204)
            // The next patch is the valid change; the refused one left no trace.
            let (_, patch) = try await stream.nextPatch()
            #expect(patch.html("guitar-description") == "Natural Chunky with Mahogany body and Rosewood fretboard")
            #expect(!patch.targets.contains("picker-color"))
            await stream.close()
        }
    }

    @Test("two streams of one session both receive a change, rendered once")
    func twoStreamsOneSession() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let session = try #require(app.liveSession(cookie))
            let (first, firstOpening, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            let (second, secondOpening, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            #expect(app.services.hub.openStreams == 2)
            #expect(session.fragments.subscriberCount == 2)

            #expect(try await app.scriptPost(form: "body=koa", cookie: cookie).status == 204)
            let (firstID, a) = try await first.nextPatch()
            let (secondID, b) = try await second.nextPatch()
            #expect(a == b)
            #expect(firstID == secondID)
            #expect(firstID > firstOpening && secondID > secondOpening)
            #expect(a.html("guitar-description") == "Natural Casual with Koa body and Rosewood fretboard")
            #expect(a.html("guitar-price") == "$2,100")
            // Streams follow the rendered fragments, not the view model: one driver per session.
            #expect(session.build.outputSubscriberCount == 1)
            await first.close()
            await second.close()
        }
    }

    @Test("another session's stream never sees this session's change")
    func sessionsAreIsolated() async throws {
        try await TestApp.run { app in
            let cookieA = try await app.newSession()
            let cookieB = try await app.newSession()
            let (streamA, _, _) = try await Self.openAndReadOpening(app, cookie: cookieA)
            let (streamB, _, _) = try await Self.openAndReadOpening(app, cookie: cookieB)

            #expect(try await app.scriptPost(form: "shape=sharpV", cookie: cookieA).status == 204)
            let (_, patchA) = try await streamA.nextPatch()
            #expect(patchA.html("guitar-description") == "Natural Sharp V with Mahogany body and Rosewood fretboard")

            #expect(try await app.scriptPost(form: "fretboard=ebony", cookie: cookieB).status == 204)
            let (_, patchB) = try await streamB.nextPatch()
            #expect(patchB.html("guitar-description") == "Natural Casual with Mahogany body and Ebony fretboard")
            #expect(patchB.html("guitar-price") == "$2,100")
            #expect(!patchB.targets.contains("picker-shape"))
            await streamA.close()
            await streamB.close()
        }
    }

    @Test("an idle stream gets a heartbeat comment each heartbeat interval of the clock")
    func heartbeat() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            for _ in 0..<2 {
                let beats = app.services.hub.heartbeat
                try await app.advance(by: .seconds(15))
                #expect(app.services.hub.heartbeat == beats + 1)
                let event = try await stream.nextEvent()
                #expect(event == ReceivedEvent(comments: ["heartbeat"]))
            }
            // A change still arrives after the heartbeats.
            #expect(try await app.scriptPost(form: "color=earth", cookie: cookie).status == 204)
            let (_, patch) = try await stream.nextPatch()
            #expect(patch.html("guitar-price") == "$2,050")
            await stream.close()
        }
    }

    @Test("no heartbeat before the interval has passed")
    func noEarlyHeartbeat() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            try await app.advance(by: .seconds(14))
            #expect(app.services.hub.heartbeat == 0)
            // What arrives next is the change, not a heartbeat.
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let event = try await stream.nextEvent()
            #expect(event.comments.isEmpty)
            #expect(try event.patch().html("guitar-price") == "$2,150")
            await stream.close()
        }
    }

    enum CloseMode: String, CaseIterable, Sendable { case full, halfClose }

    @Test("when the client goes away, its stream and subscriptions are released", arguments: CloseMode.allCases)
    func clientClose(_ mode: CloseMode) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let session = try #require(app.liveSession(cookie))
            let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            #expect(app.services.hub.openStreams == 1)
            #expect(session.fragments.subscriberCount == 1)

            switch mode {
            case .full: await stream.close()
            case .halfClose: try await stream.connection.closeOutput()
            }
            // No write is needed to notice: the clock is not advanced, so no heartbeat is sent.
            #expect(await app.streams { $0.open == 0 })
            #expect(await within { _ = await session.fragments.waitUntil({ $0 == 0 }) })
            #expect(app.services.hub.heartbeat == 0)
            if mode == .halfClose {
                // The server ends the response it was streaming.
                #expect(try await stream.next() == nil)
                await stream.close()
            }
            // The session lives on and a new stream works.
            let (again, _, patch) = try await Self.openAndReadOpening(app, cookie: cookie)
            #expect(patch.targets == Self.allTargets)
            #expect(app.services.hub.openStreams == 1)
            await again.close()
            #expect(await app.streams { $0.open == 0 })
        }
    }

    @Test("many streams opened and closed leave nothing behind")
    func noLeaks() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let session = try #require(app.liveSession(cookie))
            for _ in 0..<20 {
                let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
                await stream.close()
            }
            #expect(await app.streams { $0.open == 0 })
            #expect(await within { _ = await session.fragments.waitUntil({ $0 == 0 }) })
            #expect(session.build.outputSubscriberCount <= 1)
        }
    }

    @Test("graceful shutdown ends an open stream with a reconnect hint, then the end of the body")
    func gracefulShutdown() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let (stream, _, _) = try await Self.openAndReadOpening(app, cookie: cookie)
            await app.shutdown()
            let last = try #require(try await stream.next(), "the stream ended without a reconnect hint")
            #expect(last.retry == String(app.configuration.reconnectDelayMilliseconds))
            #expect(last.comments.contains { $0.contains("stopping") }, "\(last)")
            #expect(try await stream.next() == nil)
            #expect(await app.streams { $0.open == 0 })
            await stream.close()
        }
    }
}
