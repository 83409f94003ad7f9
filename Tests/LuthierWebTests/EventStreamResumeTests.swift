import TestSupport
import Testing

@testable import LuthierWeb

/// A reconnecting page gets what changed while it was away (`Last-Event-ID`), a page's first
/// stream what changed since it was rendered (`?since=`), and where its session now is.
@Suite("Resuming event streams over a socket")
struct EventStreamResumeTests {
    /// Opens a stream and reads the `retry:` hint and the first patch.
    static func open(
        _ app: TestApp, _ path: String = "/events", cookie: String?, lastEventID: String? = nil
    ) async throws -> (stream: EventStreamClient, id: Int, patch: Patch) {
        let headers = lastEventID.map { [("Last-Event-ID", $0)] } ?? []
        let stream = try await app.openEventStream(path, cookie: cookie, headers: headers)
        try #require(stream.head.status.code == 200)
        _ = try await stream.nextEvent()
        let (id, patch) = try await stream.nextPatch()
        return (stream, id, patch)
    }

    static let allTargets = EventStreamConnectionTests.allTargets

    @Test("a reconnect with Last-Event-ID gets only the fragments changed while it was away")
    func resumeFromLastEventID() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let first = try await Self.open(app, cookie: cookie)
            #expect(first.patch.targets == Self.allTargets)
            await first.stream.close()

            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let resumed = try await Self.open(app, cookie: cookie, lastEventID: String(first.id))
            #expect(resumed.id > first.id)
            #expect(resumed.patch.targets.contains("guitar-price"))
            #expect(resumed.patch.targets.contains("picker-color"))
            #expect(!resumed.patch.targets.contains("picker-shape"), "\(resumed.patch.targets)")
            #expect(!resumed.patch.targets.contains("cart-lines"))
            await resumed.stream.close()

            // Up to date: an empty patch that still names the version.
            let current = try await Self.open(app, cookie: cookie, lastEventID: String(resumed.id))
            #expect(current.patch.fragments.isEmpty)
            #expect(current.id == resumed.id)
            await current.stream.close()
        }
    }

    @Test("an id that is not of this session's history gets the whole state", arguments: ["12", "abc", "", "-1"])
    func foreignIDs(id: String) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let first = try await Self.open(app, cookie: cookie)
            await first.stream.close()
            for claimed in [id, String(first.id + 1_000), String(first.id + (1 << 32))] {
                let again = try await Self.open(app, cookie: cookie, lastEventID: claimed)
                #expect(again.patch.targets == Self.allTargets, "Last-Event-ID: \(claimed)")
                await again.stream.close()
            }
        }
    }

    @Test("the page carries the version it was rendered at; its stream sends only what changed since")
    func pageVersion() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let page = try await app.get("/", cookie: cookie)
            let version = try #require(
                page.text.firstMatch(of: /<body data-version="(\d+)" data-events="\/events"( data-follows="[^"]*")?>/))
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let stream = try await Self.open(app, "/events?since=\(version.output.1)", cookie: cookie)
            #expect(stream.patch.targets.contains("picker-shape"))
            #expect(!stream.patch.targets.contains("picker-color"), "\(stream.patch.targets)")
            await stream.stream.close()
        }
    }

    @Test("a tab that reconnects after its checkout became ready is sent to it")
    func navigationOnReconnect() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await app.newSession()
            let first = try await Self.open(app, cookie: cookie)
            await first.stream.close()
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)

            let resumed = try await Self.open(app, cookie: cookie, lastEventID: String(first.id))
            let navigate = try await resumed.stream.nextEvent()
            #expect(navigate.event == "navigate")
            #expect(navigate.data == ["/checkout"])
            await resumed.stream.close()

            // From an unknown point (a restart since), the session's place is told too.
            let unknown = try await Self.open(app, cookie: cookie, lastEventID: "7")
            #expect(try await unknown.stream.nextEvent().data == ["/checkout"])
            await unknown.stream.close()

            // A new page (no id) is already where it should be: no navigation.
            let fresh = try await Self.open(app, cookie: cookie)
            #expect(fresh.patch.targets.contains("checkout-action"))
            await fresh.stream.close()
        }
    }

    @Test("the kiosk's stream resumes too, and its page carries its version")
    func kioskResume() async throws {
        try await TestApp.run { app in
            let page = try await app.get("/kiosk")
            let version = try #require(page.text.firstMatch(of: /<body data-version="(\d+)" class="kiosk"/))
            let first = try await Self.open(app, "/kiosk/events?since=\(version.output.1)", cookie: nil)
            #expect(first.patch.fragments.isEmpty, "nothing changed since the page")
            await first.stream.close()
            let again = try await Self.open(app, "/kiosk/events", cookie: nil, lastEventID: String(first.id))
            #expect(again.patch.fragments.isEmpty)
            await again.stream.close()
            let fresh = try await Self.open(app, "/kiosk/events", cookie: nil)
            #expect(!fresh.patch.fragments.isEmpty)
            await fresh.stream.close()
        }
    }
}
