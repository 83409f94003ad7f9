import Foundation
import TestSupport
import Testing

@testable import LuthierWeb

/// `GET /streams`: a browser's every stream on one connection, each event tagged with its
/// stream's place in the `follow` list, each stream opened (and refused) as its own URL would be.
@Suite("One connection for a browser's streams")
struct StreamsControllerTests {
    /// A bundle's event: the tag its first data line carries, and the event's own data after it.
    struct Tagged {
        let tag: Int
        let event: ReceivedEvent

        init(_ received: ReceivedEvent) throws {
            let first = try #require(received.data.first, "an untagged event: \(received)")
            tag = try #require(Int(first), "an untagged event: \(received)")
            var event = received
            event.data.removeFirst()
            self.event = event
        }

        func patch() throws -> Patch { try event.patch() }
        var id: Int? { event.id.flatMap { Int($0) } }

        /// A refusal's status and sentence.
        var refusal: (status: Int, message: String, retryAfter: Int?)? {
            guard event.event == "refused",
                let object = try? JSONSerialization.jsonObject(with: Data(event.data.joined(separator: "\n").utf8))
                    as? [String: Any],
                let status = object["status"] as? Int, let message = object["message"] as? String
            else { return nil }
            return (status, message, object["retryAfter"] as? Int)
        }
    }

    /// The bundle's address for `follow` (each one percent-encoded as a query value).
    static func address(_ follow: [String], base: String = "/streams") -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        let query = follow.map { "follow=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0) }
        return base + "?" + query.joined(separator: "&")
    }

    /// Opens a bundle, reads its `retry:` hint and its `bundle` opening, and returns the stream.
    static func open(
        _ app: TestApp, _ follow: [String], cookie: String?, headers: [(name: String, value: String)] = []
    ) async throws -> EventStreamClient {
        try await openNamed(app, follow, cookie: cookie, headers: headers).stream
    }

    /// As `open`, with the bundle's id (`replaces` names it); `replacing` is the id of the bundle
    /// it replaces.
    static func openNamed(
        _ app: TestApp, _ follow: [String], cookie: String?, headers: [(name: String, value: String)] = [],
        replacing: String? = nil
    ) async throws -> (stream: EventStreamClient, id: String) {
        let path = address(follow) + (replacing.map { "&replaces=\($0)" } ?? "")
        let stream = try await app.openEventStream(path, cookie: cookie, headers: headers)
        try #require(stream.head.status.code == 200)
        let retry = try await stream.nextEvent()
        #expect(retry.retry == String(app.configuration.reconnectDelayMilliseconds))
        let opening = try await stream.nextEvent()
        #expect(opening.event == "bundle")
        let match = try #require(
            opening.data.first?.wholeMatch(of: /\{"id":"([0-9a-f]{32})","retry":(\d+)\}/), "\(opening)")
        #expect(Int(match.output.2) == app.configuration.reconnectDelayMilliseconds)
        return (stream, String(match.output.1))
    }

    /// The next `count` tagged events, by tag (several of one tag in the order they came).
    static func next(_ count: Int, on stream: EventStreamClient) async throws -> [Int: [Tagged]] {
        var byTag: [Int: [Tagged]] = [:]
        for _ in 0..<count {
            let tagged = try Tagged(try await stream.nextEvent())
            byTag[tagged.tag, default: []].append(tagged)
        }
        return byTag
    }

    @Test("one connection follows the session, the kiosk and an order, each event tagged with its stream's place")
    func followsSeveralStreamsOnOneConnection() async throws {
        try await TestShop.run { app, shop in
            let (cookie, number, key) = try await KioskControllerTests.placeOrder(app, shop: shop)
            let stream = try await Self.open(
                app, ["/events", "/kiosk/events", "/orders/\(number)/events?key=\(key)"], cookie: cookie,
                headers: [("Accept-Encoding", "gzip")])
            #expect(stream.head.headers["Content-Encoding"] == ["gzip"])
            let opening = try await Self.next(3, on: stream)
            #expect(try opening[0]?.first?.patch().targets.contains("picker-color") == true)
            #expect(try opening[1]?.first?.patch().targets.contains("kiosk-board") == true)
            #expect(try opening[2]?.first?.patch().targets == ["order-stages"])
            let sessionVersion = try #require(opening[0]?.first?.id)

            // A change of the session reaches its stream, tagged 0.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            var change: Tagged
            repeat { change = try Tagged(try await stream.nextEvent()) } while change.tag != 0
            #expect(try change.patch().targets.contains("picker-color"))
            #expect(try #require(change.id) > sessionVersion)
            await stream.close()
        }
    }

    @Test("a stream that cannot be opened is refused on its own, with its sentence; the others flow")
    func refusesOneStreamAndOpensTheOthers() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await app.newSession()
            let stream = try await Self.open(
                app, ["/nowhere/events", "/orders/999999/events", "/inspect/events?window=7", "/events"],
                cookie: cookie)
            let events = try await Self.next(4, on: stream)
            let nowhere = try #require(events[0]?.first?.refusal)
            #expect(nowhere.status == 404)
            #expect(nowhere.message.contains("a bundle follows /events, /kiosk/events"), "\(nowhere.message)")
            #expect(events[1]?.first?.refusal?.status == 404)
            #expect(events[1]?.first?.refusal?.message == "There is no such order.")
            let window = try #require(events[2]?.first?.refusal)
            #expect(window.status == 422)
            #expect(window.message.contains("window"), "\(window.message)")
            #expect(try events[3]?.first?.patch().targets == EventStreamConnectionTests.allTargets)
            await stream.close()
        }
    }

    @Test("the caps count the streams of one bundle as open: one connection cannot pass them")
    func capsCountTheBundlesOwnStreams() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let cap = app.configuration.maxInspectorsPerSession
            let views = (0..<(cap + 2)).map {
                "/inspect/events?window=\(InspectController.windows[$0 % 3])&lane=l\($0)"
            }
            let stream = try await Self.open(app, views, cookie: cookie)
            let events = try await Self.next(views.count, on: stream)
            for tag in 0..<cap { #expect(try events[tag]?.first?.patch().targets == [InspectController.target]) }
            for tag in cap..<views.count {
                let refusal = try #require(events[tag]?.first?.refusal, "tag \(tag)")
                #expect(refusal.status == 429)
                #expect(
                    refusal.message.contains("This browser has \(cap) stream inspectors open"), "\(refusal.message)")
                #expect(refusal.retryAfter == 30)
            }
            #expect(app.services.hub.openStreamsByKind[.inspector] == cap)
            await stream.close()
        }
    }

    @Test("a client address's cap counts the bundle's streams too: one connection cannot hold more than the cap")
    func clientCapCountsTheBundlesStreams() async throws {
        try await TestApp.run(configure: { $0.maxEventStreamsPerClient = 3 }) { app in
            let stream = try await Self.open(app, Array(repeating: "/kiosk/events", count: 5), cookie: nil)
            let events = try await Self.next(5, on: stream)
            for tag in 0..<3 { #expect(try events[tag]?.first?.patch().targets.contains("kiosk-board") == true) }
            for tag in 3..<5 {
                let refusal = try #require(events[tag]?.first?.refusal, "tag \(tag)")
                #expect(refusal.status == 503)
                #expect(
                    refusal.message.contains("This network address has 3 live pages of the shop open"),
                    "\(refusal.message)")
                #expect(refusal.retryAfter == 30)
            }
            #expect(app.services.hub.openKioskStreams == 3)
            await stream.close()
        }
    }

    @Test(
        "a bundle that names the one it replaces has it end first: the streams it follows again are not counted twice")
    func aNewBundleReplacesTheOld() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let cap = app.configuration.maxInspectorsPerSession
            let views = (0..<cap).map { "/inspect/events?window=300&lane=l\($0)" }
            let (first, id) = try await Self.openNamed(app, views, cookie: cookie)
            _ = try await Self.next(cap, on: first)

            // Without naming it, the old bundle's inspectors still count: the new one's are refused.
            let (unnamed, _) = try await Self.openNamed(app, views, cookie: cookie)
            let refused = try await Self.next(cap, on: unnamed)
            #expect((0..<cap).allSatisfy { refused[$0]?.first?.refusal?.status == 429 }, "\(refused)")
            #expect(try await unnamed.next() == nil, "nothing opened: it ends")

            // Naming it: the old one ends, and every stream opens on the new one with a builder tab.
            let (second, secondID) = try await Self.openNamed(app, views + ["/events"], cookie: cookie, replacing: id)
            let opened = try await Self.next(cap + 1, on: second)
            for tag in 0..<cap { #expect(try opened[tag]?.first?.patch().targets == [InspectController.target]) }
            #expect(try opened[cap]?.first?.patch().targets == EventStreamConnectionTests.allTargets)
            #expect(try await first.next() == nil, "the replaced bundle has ended")
            #expect(secondID != id)
            // An id that is not an open bundle's replaces nothing.
            let (third, _) = try await Self.openNamed(app, ["/kiosk/events"], cookie: cookie, replacing: id)
            _ = try await Self.next(1, on: third)
            #expect(app.services.hub.openStreamsByKind[.inspector] == cap)
            await second.close()
            await third.close()
        }
    }

    @Test("each stream resumes from its own version, and the bundle's Last-Event-ID is not taken for any")
    func eachStreamResumesFromItsOwnVersion() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let first = try await Self.open(app, ["/kiosk/events", "/events"], cookie: cookie)
            let opening = try await Self.next(2, on: first)
            let version = try #require(opening[1]?.first?.id)
            await first.close()

            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            // The kiosk as a page rendered now shows it (the change may have moved its counters).
            let kioskPage = try await app.get("/kiosk")
            let kioskVersion = try #require(kioskPage.text.firstMatch(of: /data-version="(\d+)"/)).output.1
            let again = try await Self.open(
                app, ["/kiosk/events?since=\(kioskVersion)", "/events?since=\(version)"], cookie: cookie,
                headers: [("Last-Event-ID", "1")])
            let resumed = try await Self.next(2, on: again)
            let kiosk = try #require(resumed[0]?.first)
            #expect(try kiosk.patch().fragments.isEmpty, "nothing new on the kiosk's stream")
            let session = try #require(resumed[1]?.first).patch().targets
            #expect(session.contains("picker-shape"))
            #expect(!session.contains("picker-color"), "\(session)")
            await again.close()
        }
    }

    @Test("a bundle names at least one stream and at most sixteen, each a path of this shop")
    func boundsWhatABundleNames() async throws {
        try await TestApp.run { app in
            let none = try await app.get("/streams")
            #expect(none.status == 400)
            #expect(none.text.contains("Name the streams to follow"), "\(none.text)")
            let many = try await app.get(Self.address(Array(repeating: "/kiosk/events", count: 17)))
            #expect(many.status == 400)
            #expect(many.text.contains("follow names 17 streams; one connection follows at most 16."), "\(many.text)")

            let stream = try await Self.open(
                app, ["https://elsewhere.example/events", "/" + String(repeating: "a", count: 600)], cookie: nil)
            let events = try await Self.next(2, on: stream)
            for tag in 0..<2 {
                let refusal = try #require(events[tag]?.first?.refusal)
                #expect(refusal.status == 400)
                #expect(refusal.message.contains("starting with /, of at most 512 bytes"), "\(refusal.message)")
            }
            // Nothing could be opened: the bundle ends once it has said why.
            #expect(try await stream.next() == nil)
        }
    }

    @Test("the admin's streams are followed under /admin, where the sign-in cookie goes; elsewhere they are refused")
    func adminStreamsNeedTheAdmin() async throws {
        try await TestApp.run(configure: { $0.adminToken = "secret-token-of-the-admin" }) { app in
            let stream = try await Self.open(app, ["/admin/inspect/events"], cookie: nil)
            let refusal = try #require(try await Self.next(1, on: stream)[0]?.first?.refusal)
            #expect(refusal.status == 403)
            #expect(refusal.message.contains("sign in at /admin/sign-in"), "\(refusal.message)")

            let admin = try await app.openEventStream(
                Self.address(["/admin/inspect/events"], base: "/admin/streams"), cookie: nil,
                headers: [("Authorization", "Bearer secret-token-of-the-admin")])
            #expect(admin.head.status.code == 200)
            _ = try await admin.nextEvent()
            _ = try await admin.nextEvent()
            let opening = try Tagged(try await admin.nextEvent())
            #expect(try opening.patch().targets == [InspectController.target])
            await admin.close()
        }
    }
}
