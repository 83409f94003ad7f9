import Foundation
import Hummingbird
import Logging
import LuthierFeatures
import NIOHTTP1
import ServerMachinery
import ServiceLifecycle
import TestSupport
import Testing

@testable import LuthierWeb

/// The real application on 127.0.0.1 and a free port, with a test clock, driven over real HTTP.
struct TestApp: Sendable {
    static let cookieName = "luthier_session"
    static let formType = "application/x-www-form-urlencoded"

    /// The repository root, found from this file: Tests/LuthierWebTests/Support/TestApp.swift.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    let port: Int
    let services: LuthierServices
    let clock: WatchedTestClock
    /// The workshop floor's and the kiosk's clock, apart from the sessions' timers.
    let showroomClock: WatchedTestClock
    let configuration: LuthierConfiguration
    /// Session cookies the server replaced, and their replacements.
    let jar = SessionCookieJar()
    private let triggerShutdown: @Sendable () async -> Void

    /// Starts the application, runs `body` against it, then shuts it down gracefully and waits
    /// (boundedly) until it has stopped. `environment` makes the services from the test clock
    /// (by default, fakes that fail on any call).
    static func run<Value: Sendable>(
        configure: (inout LuthierConfiguration) -> Void = { _ in },
        environment makeEnvironment: (WatchedTestClock) -> LuthierEnvironment = { .webTest(clock: $0) },
        admin: WorkshopAdminClient = .failing,
        journal: JournalClient = MemoryJournal().client,
        log: LogCapture? = nil,
        readiness: @escaping @Sendable () async -> String? = { nil },
        showcase: ShowcaseClient? = nil,
        _ body: @Sendable (TestApp) async throws -> Value
    ) async throws -> Value {
        var configuration = LuthierConfiguration(
            host: "127.0.0.1",
            port: 0,
            publicDirectory: repositoryRoot.appendingPathComponent("Public").path,
            templatesDirectory: repositoryRoot.appendingPathComponent("Templates").path,
            // One heartbeat per interval for all streams, so tests count exactly one beat per
            // interval of the clock (the slices have tests of their own).
            heartbeatSlices: 1,
            // Tests order many times from one address and session; the limits have tests of their own.
            orderLimitPerSession: .perHour(1_000),
            orderLimitPerClient: .perHour(100_000)
        )
        // Likewise they order scarce woods many times over; the rule has tests of its own.
        configuration.scarceWoods = .off
        configure(&configuration)
        let clock = WatchedTestClock()
        let showroomClock = WatchedTestClock()
        var logger = Logger(label: "luthier-test")
        logger.logLevel = .critical
        if let log { logger = log.logger() }
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let (app, services) = try await buildApplicationWithServices(
            configuration: configuration,
            environment: makeEnvironment(clock),
            admin: admin,
            journal: journal,
            logger: logger,
            showroomClock: showroomClock,
            readiness: readiness,
            showcase: showcase,
            onServerRunning: { port in
                portContinuation.yield(port)
                portContinuation.finish()
            }
        )
        let serviceGroup = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { portContinuation.finish() }
                try await serviceGroup.run()
            }
            var portIterator = ports.makeAsyncIterator()
            guard let port = await portIterator.next() else {
                try await group.waitForAll()
                throw TimeoutError(what: "the server to start", limit: .zero)
            }
            let testApp = TestApp(
                port: port,
                services: services,
                clock: clock,
                showroomClock: showroomClock,
                configuration: configuration,
                triggerShutdown: { await serviceGroup.triggerGracefulShutdown() }
            )
            // The journal's reader loads once at start, as the floor does; a test begins after it
            // has (the in-memory journal answers at once), so that a kiosk page and its stream agree.
            _ = await services.showroom.kioskFragments.until { _ in
                !services.showroom.journalPanel.contains("Loading the journal")
            }
            let result: Result<Value, any Error>
            do {
                result = .success(try await body(testApp))
            } catch {
                result = .failure(error)
            }
            await serviceGroup.triggerGracefulShutdown()
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                throw TimeoutError(what: "graceful shutdown", limit: .seconds(10))
            }
            defer { group.cancelAll() }
            let stopped: Result<Void, any Error>
            do {
                _ = try await group.next()
                stopped = .success(())
            } catch {
                stopped = .failure(error)
            }
            let value = try result.get()
            try stopped.get()
            return value
        }
    }

    /// Starts graceful shutdown now (the test then watches what the clients see).
    func shutdown() async {
        await triggerShutdown()
    }

    // MARK: requests

    /// Sends a request. As a browser's cookie jar would, a session cookie the server replaced (an
    /// order rotates the id) is sent as its replacement; `followingRotations: false` sends the
    /// cookie as given (to prove the old one stopped working).
    func request(
        _ method: HTTPMethod,
        _ path: String,
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        followingRotations: Bool = true
    ) async throws -> TestHTTPResponse {
        let sent = followingRotations ? jar.rewrite(headers) : headers
        let connection = try await HTTPTestConnection.open(
            port: port,
            request: TestRequest(method: method, path: path, headers: sent, body: body)
        )
        let response = try await connection.response()
        jar.learn(path: path, sent: sent, response: response)
        return response
    }

    func get(
        _ path: String = "/",
        cookie: String? = nil,
        headers: [(name: String, value: String)] = []
    ) async throws -> TestHTTPResponse {
        try await request(.GET, path, headers: Self.withCookie(cookie, headers))
    }

    /// A form post; `contentType: nil` sends none.
    func post(
        _ path: String = "/build",
        form: String,
        cookie: String? = nil,
        contentType: String? = TestApp.formType,
        headers: [(name: String, value: String)] = []
    ) async throws -> TestHTTPResponse {
        try await post(path, bytes: Array(form.utf8), cookie: cookie, contentType: contentType, headers: headers)
    }

    func post(
        _ path: String = "/build",
        bytes: [UInt8],
        cookie: String? = nil,
        contentType: String? = TestApp.formType,
        headers: [(name: String, value: String)] = []
    ) async throws -> TestHTTPResponse {
        var all = Self.withCookie(cookie, headers)
        if let contentType { all.append(("Content-Type", contentType)) }
        return try await request(.POST, path, headers: all, body: bytes)
    }

    /// A post as the page's script sends it (answered 204).
    func scriptPost(
        _ path: String = "/build",
        form: String,
        cookie: String?,
        headers: [(name: String, value: String)] = []
    ) async throws -> TestHTTPResponse {
        try await post(path, form: form, cookie: cookie, headers: [("X-Requested-With", "fetch")] + headers)
    }

    /// Posts `form` as the page script does and expects it refused with `status`, in a sentence
    /// that says `saying`.
    func expectRefusal(
        of form: String, to path: String, cookie: String?, status: Int, saying: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let refused = try await scriptPost(path, form: form, cookie: cookie)
        #expect(refused.status == status, "\(refused.text)", sourceLocation: sourceLocation)
        #expect(refused.text.contains(saying), "\(refused.text)", sourceLocation: sourceLocation)
    }

    /// Opens the page as a new visitor and returns the session cookie's value, with its session
    /// made (as its first post or stream would make it: a page alone makes none).
    func newSession() async throws -> String {
        let response = try await get()
        guard response.status == 200, let cookie = SetCookie(response) else {
            throw NoSession(status: response.status, body: response.text)
        }
        guard try await services.registry.session(forCookie: cookie.value, adopting: true) != nil else {
            throw NoSession(status: response.status, body: "the issued id was not adopted")
        }
        return cookie.value
    }

    /// The builder page as a session sees it.
    func page(cookie: String) async throws -> BuilderPageSnapshot {
        let response = try await get(cookie: cookie)
        guard response.status == 200 else { throw NoSession(status: response.status, body: response.text) }
        return BuilderPageSnapshot(html: response.text)
    }

    /// The session a cookie names, if it is in memory now (no restore from the store).
    func liveSession(_ cookie: String?) -> Session? {
        cookie.map(jar.current(of:)).flatMap(SessionID.init(cookieValue:)).flatMap { services.registry.live($0) }
    }

    /// Waits until the hub's counts meet `condition`, as the hub tells each stream opened and
    /// released (nothing polls); false if they have not after `limit`, which only keeps a broken
    /// server from hanging the test.
    func streams(
        within limit: Duration = .seconds(5), _ condition: @escaping @Sendable (EventStreamHub.Counts) -> Bool
    ) async -> Bool {
        let hub = services.hub
        return await within(limit) { _ = await hub.waitUntil(condition) }
    }

    /// Opens `GET /events` and reads its head.
    ///
    /// `followingRotations: false` sends the cookie as given, as `request` does.
    func openEventStream(
        _ path: String = "/events",
        cookie: String?,
        headers: [(name: String, value: String)] = [],
        followingRotations: Bool = true
    ) async throws -> EventStreamClient {
        let given = Self.withCookie(cookie, headers)
        let connection = try await HTTPTestConnection.open(
            port: port,
            request: TestRequest(method: .GET, path: path, headers: followingRotations ? jar.rewrite(given) : given)
        )
        let head = try await connection.head()
        return EventStreamClient(connection: connection, head: head)
    }

    /// The server's repeating timers: the idle sweep, the event-stream heartbeat and the expiry of
    /// stored sessions.
    static let serverTimers = 3

    /// Advances the test clock; returns once every timer that fired has done its work.
    func advance(by duration: Duration) async throws {
        try await clock.advance(by: duration, timers: Self.serverTimers)
    }

    private static func withCookie(
        _ cookie: String?,
        _ headers: [(name: String, value: String)]
    ) -> [(name: String, value: String)] {
        guard let cookie else { return headers }
        return [("Cookie", "\(cookieName)=\(cookie)")] + headers
    }

    struct NoSession: Error, CustomStringConvertible {
        let status: Int
        let body: String
        var description: String { "No session: \(status) \(body)" }
    }
}

/// A `Set-Cookie` header, split into its value and its attributes.
struct SetCookie: Sendable {
    let name: String
    let value: String
    /// Attribute names lowercased, with their values ("" for flags).
    let attributes: [String: String]

    init?(_ response: TestHTTPResponse) {
        let headers = response.headers["Set-Cookie"]
        guard headers.count == 1, let header = headers.first else { return nil }
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        name = String(first[..<equals])
        value = String(first[first.index(after: equals)...])
        var attributes: [String: String] = [:]
        for part in parts.dropFirst() {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard let key = pieces.first else { continue }
            attributes[key.lowercased()] = pieces.count > 1 ? String(pieces[1]) : ""
        }
        self.attributes = attributes
    }

    /// 64 lowercase hex digits, as the server issues.
    var isWellFormedSessionID: Bool {
        value.utf8.count == 64 && value.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// The parts of the builder page the tests read.
struct BuilderPageSnapshot: Sendable {
    let html: String

    /// The text content of the element with `id` (which must contain no nested tags).
    func text(ofElement id: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        guard let open = html[start.upperBound...].firstIndex(of: ">") else { return nil }
        let content = html[html.index(after: open)...]
        guard let close = content.firstIndex(of: "<") else { return nil }
        return String(content[..<close])
    }

    var description: String? { text(ofElement: "guitar-description") }
    var price: String? { text(ofElement: "guitar-price") }
    var checkoutLabel: String? { text(ofElement: "checkout-button") }

    /// For every radio group, the values of its checked inputs.
    var checkedValues: [String: [String]] {
        var result: [String: [String]] = [:]
        for match in html.matches(of: /<input([^>]*)>/) {
            let attributes = String(match.output.1)
            guard attributes.contains("type=\"radio\""),
                let name = attributes.firstMatch(of: /name="([^"]*)"/)?.output.1,
                let value = attributes.firstMatch(of: /value="([^"]*)"/)?.output.1
            else { continue }
            if result[String(name)] == nil { result[String(name)] = [] }
            if attributes.contains(/\schecked(\s|$)/) { result[String(name), default: []].append(String(value)) }
        }
        return result
    }

    /// All radio values of a group, in page order.
    func radioValues(_ name: String) -> [String] {
        html.matches(of: /<input([^>]*)>/).compactMap { match -> String? in
            let attributes = String(match.output.1)
            guard attributes.contains("name=\"\(name)\""), attributes.contains("type=\"radio\"") else { return nil }
            return attributes.firstMatch(of: /value="([^"]*)"/).map { String($0.output.1) }
        }
    }
}
