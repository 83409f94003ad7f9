import Foundation
import LuthierDomain
import LuthierLive
import NIOCore
import ServerMachinery
import Synchronization
import TestSupport

@testable import LuthierWeb

/// One keep-alive connection's share of a fuzz run: its own seeded sequence of requests, written
/// back to back (several pipelined in one write), reconnecting whenever the server (or the
/// request) closes the connection.
struct SocketFuzzWorker {
    let index: Int
    let requests: Int
    let app: TestApp
    let target: FuzzTarget
    let recorder: FuzzRecorder
    private var fuzzer: RequestFuzzer
    private var connection: RawHTTPConnection?
    /// Messages sent on the current connection.
    private var usedConnection = 0

    init(index: Int, seed: UInt64, requests: Int, app: TestApp, target: FuzzTarget, recorder: FuzzRecorder) {
        self.index = index
        self.requests = requests
        self.app = app
        self.target = target
        self.recorder = recorder
        fuzzer = RequestFuzzer(seed: FuzzSeeds.seed(of: "socket", index, runSeed: seed), target: target, mode: .socket)
    }

    mutating func run() async {
        var sent = 0
        var number = 0
        while sent < requests {
            let message = fuzzer.next(following: app.jar)
            number += 1
            if message.requests.first?.needsFreshConnection == true { await dropConnection() }
            let start = ContinuousClock.now
            let result = await send(message)
            let elapsed = ContinuousClock.now - start
            recorder.take(
                message, result, via: "socket \(index)", number: number, elapsed: elapsed, app: app,
                orders: target.orders)
            sent += message.requests.count
            if mustReconnect(message, result) { await dropConnection() }
        }
        await dropConnection()
    }

    /// Sends on the open connection (or a new one). A connection the server closed without saying
    /// so between two requests is not the new request's fault: that request is sent again, once,
    /// on a new connection, and the silent close is counted.
    private mutating func send(_ message: FuzzMessage) async -> Result<[RawHTTPResponse], RawHTTPFailure> {
        let bytes = message.bytes(port: app.port)
        let expectations = message.requests.map(\.expectation)
        for attempt in 0..<2 {
            guard let connection = await openConnection() else {
                return .failure(.notSent("could not connect to the server"))
            }
            let reused = usedConnection > 0
            usedConnection += 1
            let result = await connection.exchange(bytes, expecting: expectations, timeout: FuzzRecorder.answerLimit)
            if attempt == 0, reused, Self.isSilentClose(result) {
                recorder.countSilentClose()
                await dropConnection()
                continue
            }
            return result
        }
        return .failure(.notSent("the server closed two connections in a row before answering"))
    }

    /// The connection was found closed before anything of the answer arrived.
    static func isSilentClose(_ result: Result<[RawHTTPResponse], RawHTTPFailure>) -> Bool {
        switch result {
        case .failure(.notSent): true
        case .failure(.closed(let received, let pendingBytes)): received.isEmpty && pendingBytes == 0
        default: false
        }
    }

    private mutating func openConnection() async -> RawHTTPConnection? {
        if let connection, connection.isActive { return connection }
        await dropConnection()
        for _ in 0..<3 {
            if let opened = try? await RawHTTPConnection.connect(port: app.port) {
                connection = opened
                usedConnection = 0
                recorder.countConnection()
                return opened
            }
        }
        return nil
    }

    private mutating func dropConnection() async {
        if let connection { await connection.close() }
        connection = nil
    }

    private func mustReconnect(_ message: FuzzMessage, _ result: Result<[RawHTTPResponse], RawHTTPFailure>) -> Bool {
        guard case .success(let responses) = result else { return true }
        return message.closesConnection || responses.contains { $0.closesConnection }
    }
}

/// One in-process task's share of a fuzz run: requests a parser lets through, straight to the
/// application's router, one after the other. Worker 0 also moves the test clocks as the whole
/// run progresses (debounces, heartbeats, the idle sweep) and restocks the workshop, so that
/// orders keep being placed.
struct InProcessFuzzWorker {
    let index: Int
    let requests: Int
    let app: TestApp
    let shop: TestShop
    let server: InProcessServer
    let target: FuzzTarget
    let recorder: FuzzRecorder
    let watchdog: FuzzWatchdog
    let sweepInterval: Duration
    private var fuzzer: RequestFuzzer
    private var nextTick = FuzzSeeds.tickEvery
    private var nextSweep = FuzzSeeds.sweepEvery

    init(
        index: Int, seed: UInt64, requests: Int, app: TestApp, shop: TestShop, server: InProcessServer,
        target: FuzzTarget, recorder: FuzzRecorder, watchdog: FuzzWatchdog, sweepInterval: Duration
    ) {
        self.index = index
        self.requests = requests
        self.app = app
        self.shop = shop
        self.server = server
        self.target = target
        self.recorder = recorder
        self.watchdog = watchdog
        self.sweepInterval = sweepInterval
        fuzzer = RequestFuzzer(
            seed: FuzzSeeds.seed(of: "in-process", index, runSeed: seed), target: target, mode: .inProcess)
    }

    mutating func run() async {
        var sent = 0
        var number = 0
        while sent < requests {
            let message = fuzzer.next(following: app.jar)
            number += 1
            let via = "in-process \(index)"
            var responses: [RawHTTPResponse] = []
            var failure: RawHTTPFailure?
            let start = ContinuousClock.now
            for request in message.requests {
                watchdog.started(via, number: number, request: request)
                let result = await server.respond(to: request)
                watchdog.finished(via)
                switch result {
                case .success(let response): responses.append(response)
                case .failure(let error): failure = error
                }
                if failure != nil { break }
            }
            let result: Result<[RawHTTPResponse], RawHTTPFailure> = failure.map { .failure($0) } ?? .success(responses)
            recorder.take(
                message, result, via: via, number: number, elapsed: ContinuousClock.now - start, app: app,
                orders: target.orders)
            sent += message.requests.count
            if index == 0 { await driveClocks() }
        }
    }

    /// Moves the sessions' and the showroom's clocks on as the run progresses, from one worker
    /// only so that ticks never overlap.
    private mutating func driveClocks() async {
        let done = recorder.requestCount
        while done >= nextTick {
            await app.clock.base.advance(by: FuzzSeeds.tick)
            await app.showroomClock.base.advance(by: FuzzSeeds.tick)
            nextTick += FuzzSeeds.tickEvery
        }
        while done >= nextSweep {
            await app.clock.base.advance(by: sweepInterval)
            for wood in StockedWood.allCases { try? await shop.store.setStock(of: wood, to: 30) }
            nextSweep += FuzzSeeds.sweepEvery
        }
    }
}

/// The fuzz run's constants: how each worker's seed follows from the run's, and how time moves.
enum FuzzSeeds {
    /// Every this many requests (of the whole run) the clocks move on by `tick`.
    static let tickEvery = 500
    static let tick = Duration.milliseconds(600)
    /// Every this many requests the sessions' clock moves on by a whole sweep interval.
    static let sweepEvery = 2_500

    /// Each worker's own seed, from the run's.
    static func seed(of kind: String, _ index: Int, runSeed: UInt64) -> UInt64 {
        let salt: UInt64 = kind == "socket" ? 0x5EED_50C4 : 0x5EED_1A9C
        var mixer = SeededGenerator(seed: runSeed ^ salt ^ (UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15))
        return mixer.next()
    }
}

/// Notices an in-process request that does not come back (a hang), and says which, at once: the
/// test's time limit would otherwise end the run without naming it.
final class FuzzWatchdog: Sendable {
    private struct Running {
        var number: Int
        var request: FuzzRequest
        var since: ContinuousClock.Instant
    }

    private let running = Mutex<[String: Running]>([:])
    private let reported = Mutex<Set<String>>([])
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
    }

    func started(_ worker: String, number: Int, request: FuzzRequest) {
        running.withLock { $0[worker] = Running(number: number, request: request, since: .now) }
    }

    func finished(_ worker: String) {
        _ = running.withLock { $0.removeValue(forKey: worker) }
    }

    /// The requests running for longer than `limit`, each described once.
    func hung(longerThan limit: Duration) -> [String] {
        let now = ContinuousClock.now
        let stuck = running.withLock { running in running.filter { now - $0.value.since > limit } }
        return stuck.compactMap { worker, running in
            guard reported.withLock({ $0.insert(worker).inserted }) else { return nil }
            return "Fuzz seed \(FuzzTests.hex(seed)), \(worker), message #\(running.number) (\(running.request.kind)): "
                + "no answer within \(limit) (a hang)\n request: \(running.request)"
        }
    }
}

/// Judges every answer of a fuzz run as it arrives and keeps the statistics and the failures.
final class FuzzRecorder: Sendable {
    /// The session ids orders replaced, shared with the workers that send the requests.
    let jar: SessionCookieJar
    /// Whether two cookie values name the same session now (an id replaced by an order, in its
    /// grace, and its replacement): the answer's cookie was a refresh, not a new session.
    let sameSession: @Sendable (String, String) -> Bool
    static let answerLimit = TimeAmount.seconds(10)
    /// Failures described in full (the rest are counted).
    static let describedFailures = 40

    private struct State {
        var requests = 0
        var messages = 0
        var kinds: [String: Int] = [:]
        var statuses: [Int: Int] = [:]
        var failures: [String] = []
        var failureCount = 0
        var silentCloses = 0
        var connections = 0
        var closedWithoutAnswer = 0
        var withoutSecurityHeaders: [String: Int] = [:]
        /// Time spent waiting for the answers, by the kind of the message's first request.
        var time: [String: Duration] = [:]
        /// Failures by the kind of request and what was wrong.
        var failureKinds: [String: Int] = [:]
        /// New cookies for sessions the run knew, judged once the run is over (see `judgeLate()`).
        var newCookies: [(sent: String, description: String)] = []
    }

    let seed: UInt64
    private let state = Mutex(State())

    init(seed: UInt64, jar: SessionCookieJar, sameSession: @escaping @Sendable (String, String) -> Bool) {
        self.seed = seed
        self.jar = jar
        self.sameSession = sameSession
    }

    var requestCount: Int { state.withLock { $0.requests } }
    var failures: [String] { state.withLock { $0.failures } }
    var failureCount: Int { state.withLock { $0.failureCount } }
    /// Answers the application gave without the security headers, by method and status.
    var withoutSecurityHeaders: [String: Int] { state.withLock { $0.withoutSecurityHeaders } }

    func countSilentClose() { state.withLock { $0.silentCloses += 1 } }

    /// A failure found outside an answer (a hang noticed by the watchdog).
    func recordFailure(_ description: String) {
        state.withLock { state in
            state.failureCount += 1
            if state.failures.count < Self.describedFailures { state.failures.append(description) }
        }
    }
    func countConnection() { state.withLock { $0.connections += 1 } }

    static let newCookie = "a new session cookie for a session that exists"
    /// The refusal of a post whose session an order replaced while the post waited for its turn.
    static let replacedSentence = "This session was replaced after an order in another window"

    /// The new cookies answered to requests whose id no order of the whole run replaced: those are
    /// failures. One whose id an order replaced was sent with the old id while another worker's
    /// order was on its way; once the replacement's grace is over (the fuzz moves the sessions'
    /// clock on by whole sweeps), the server rightly treats the old id as unknown and answers with
    /// a new session. Which of the two answers is judged first depends on the workers' timing, so
    /// this is judged after the last.
    func judgeLate() {
        let pending = state.withLock { state in
            defer { state.newCookies = [] }
            return state.newCookies
        }
        for (sent, description) in pending where !jar.isReplaced(sent) {
            recordFailure(description)
        }
    }

    /// Judges the answers to one message; returns how many problems it found (and records them).
    @discardableResult
    func judge(
        _ message: FuzzMessage, _ result: Result<[RawHTTPResponse], RawHTTPFailure>, via worker: String,
        number: Int, elapsed: Duration = .zero
    ) -> Int {
        var problems: [(request: FuzzRequest, response: RawHTTPResponse?, problem: String)] = []
        var answered: [RawHTTPResponse] = []
        switch result {
        case .success(let responses):
            answered = responses
        case .failure(.closed(let received, _)):
            answered = received
            let unanswered = message.requests.dropFirst(received.count)
            if let first = unanswered.first, !first.oracle.mayCloseWithoutAnswer {
                problems.append((first, nil, "the server closed the connection without answering"))
            }
            state.withLock { $0.closedWithoutAnswer += 1 }
        case .failure(let failure):
            answered = []
            if case .timedOut(_, let received, _) = failure { answered = received }
            let first = message.requests[min(answered.count, message.requests.count - 1)]
            problems.append((first, nil, "\(failure)"))
        }
        for (request, response) in zip(message.requests, answered) {
            // An order gives its session a new id: later requests of that pool session send it.
            // (Only a placed order: a refused one sent with an already replaced id gets a new
            // session's cookie, which is no replacement of the pool session.)
            if request.isOrderPost, response.status == 204 || response.status == 303,
                let sent = request.sentSession, let renewed = Self.sessionCookie(setBy: response)
            {
                jar.record(sent, replacedBy: renewed)
            }
            // Another worker's order replaced this session's id while the request was on its way:
            // the server rightly treats the old id as unknown, so only server errors count.
            var stale = !request.isOrderPost && request.sentSession.map { jar.isReplaced($0) } == true
            // A late request with an id another worker's order just replaced never gets the new
            // id back (whoever else held the old one would get it too): a new cookie naming the
            // same session is a failure.
            if !stale, !request.isOrderPost, let sent = request.sentSession,
                let set = Self.sessionCookie(setBy: response), set != sent, sameSession(sent, set)
            {
                problems.append((request, response, "handed the new id of a session to a request with its old one"))
                stale = true
            }
            // A post or a stream asked for with an id another worker's order replaced meanwhile is
            // refused with `409` and that sentence, and its session's own order page is not shown
            // (`404`): right if an order of the run replaced the id, which may be judged after
            // this answer, so it is judged when the run is over too.
            let replacedMeanwhile =
                (response.status == 409 && String(buffer: response.body).contains(Self.replacedSentence))
                || (request.kind == RequestFuzzer.orderBySession && response.status == 404)
            for problem in Self.problems(request, response)
            where !stale || problem.contains("server error") || problem.contains("Retry-After") {
                if problem == Self.newCookie || replacedMeanwhile, let sent = request.sentSession {
                    // Judged when the run is over: the order that replaced this id may be judged
                    // after this answer (see `judgeLate()`).
                    state.withLock { state in
                        state.newCookies.append(
                            (
                                sent,
                                "Fuzz seed \(FuzzTests.hex(seed)), \(worker), message #\(number) "
                                    + "(\(request.kind)): \(problem)\n request: \(request)\n answer: \(response)"
                            ))
                    }
                    continue
                }
                problems.append((request, response, problem))
            }
        }
        state.withLock { state in
            state.messages += 1
            state.requests += message.requests.count
            for request in message.requests {
                state.time[request.kind, default: .zero] += elapsed / message.requests.count
            }
            for (request, response) in zip(message.requests, answered) {
                state.kinds[request.kind, default: 0] += 1
                state.statuses[response.status, default: 0] += 1
                if response.header("X-Content-Type-Options") != "nosniff" {
                    state.withoutSecurityHeaders["\(request.method) \(response.status)", default: 0] += 1
                }
            }
            for request in message.requests.dropFirst(answered.count) {
                state.kinds[request.kind, default: 0] += 1
            }
            state.failureCount += problems.count
            for (request, _, problem) in problems {
                let summary = problem.prefix(60)
                state.failureKinds["\(request.kind): \(summary)", default: 0] += 1
            }
            for (request, response, problem) in problems where state.failures.count < Self.describedFailures {
                state.failures.append(
                    "Fuzz seed \(FuzzTests.hex(seed)), \(worker), message #\(number) "
                        + "(\(request.kind)): \(problem)\n request: \(request)\n answer: "
                        + (response.map { "\($0)" } ?? "none"))
            }
        }
        return problems.count
    }

    /// Judges the answers to one message and, when they are all as expected, learns the orders
    /// they confirmed.
    func take(
        _ message: FuzzMessage, _ result: Result<[RawHTTPResponse], RawHTTPFailure>, via worker: String,
        number: Int, elapsed: Duration, app: TestApp, orders: OrderBook
    ) {
        if judge(message, result, via: worker, number: number, elapsed: elapsed) == 0 {
            learnOrders(message, result, app: app, orders: orders)
        }
    }

    /// After an order is confirmed, remember its number and key, for the order pages.
    func learnOrders(
        _ message: FuzzMessage, _ result: Result<[RawHTTPResponse], RawHTTPFailure>, app: TestApp, orders: OrderBook
    ) {
        guard case .success(let responses) = result else { return }
        for (request, response) in zip(message.requests, responses)
        where request.kind == "post valid order" && (response.status == 204 || response.status == 303) {
            guard let cookie = request.session,
                let order = app.liveSession(cookie)?.build.currentCheckout?.latestState.order
            else { continue }
            orders.add(OrderBook.Entry(number: order.number, key: order.accessKey, session: cookie))
        }
    }

    /// The session id a `Set-Cookie` of the answer carries.
    static func sessionCookie(setBy response: RawHTTPResponse) -> String? {
        for cookie in response.headers(named: "Set-Cookie") {
            let value = cookie.split(separator: ";").first.map(String.init) ?? ""
            if value.hasPrefix("\(TestApp.cookieName)=") {
                return String(value.dropFirst(TestApp.cookieName.count + 1))
            }
        }
        return nil
    }

    /// What is wrong with one answer, by the rules every answer follows and the request's oracle.
    static func problems(_ request: FuzzRequest, _ response: RawHTTPResponse) -> [String] {
        var problems: [String] = []
        let oracle = request.oracle
        let status = response.status
        if status >= 500 {
            if status != 503 {
                problems.append("a server error")
            } else if response.header("Retry-After") == nil {
                problems.append("503 without Retry-After")
            }
        }
        // A refusal says why, the parser's own included (a HEAD's answer has no body to say it in,
        // and a CONNECT's is not read: see `headerOddity`).
        if (400..<500).contains(status), !["HEAD", "CONNECT"].contains(request.method),
            response.body.readableBytes == 0
        {
            problems.append("a refusal without a sentence")
        }
        if let statuses = oracle.statuses, !statuses.contains(status) {
            problems.append("status \(status), expected \(statuses.sorted().map(String.init).joined(separator: "/"))")
        }
        if status == 303, let location = oracle.location, response.header("Location") != location {
            problems.append("redirected to \(response.header("Location") ?? "nowhere"), not \(location)")
        }
        let cookies = response.headers(named: "Set-Cookie")
        if oracle.noNewCookie, !cookies.isEmpty {
            problems.append(newCookie)
        }
        for cookie in cookies {
            let value = cookie.split(separator: ";").first.map(String.init) ?? ""
            let id =
                value.hasPrefix("\(TestApp.cookieName)=") ? String(value.dropFirst(TestApp.cookieName.count + 1)) : ""
            if request.forgedCookies.contains(id) { problems.append("adopted a session id it did not issue") }
            if SessionID(cookieValue: id) == nil { problems.append("issued a malformed session id \(id.prefix(80))") }
            if !cookie.lowercased().contains("httponly") { problems.append("a session cookie without HttpOnly") }
        }
        if status == 200, let type = oracle.contentType, response.header("Content-Type")?.hasPrefix(type) != true {
            problems.append("content type \(response.header("Content-Type") ?? "none"), expected \(type)")
        }
        let isHTML = response.header("Content-Type")?.lowercased().contains("html") ?? true
        let markupIsInert = !isHTML && response.header("X-Content-Type-Options") == "nosniff"
        if !oracle.forbiddenText.isEmpty, !(oracle.forbidsMarkupOnly && markupIsInert) {
            let body = response.plainText ?? ""
            for text in oracle.forbiddenText where body.contains(text) {
                problems.append("the answer contains \(text.debugDescription)")
            }
        }
        if let coding = response.header("Content-Encoding") {
            let accepted = request.headers.filter { $0.name.lowercased() == "accept-encoding" }
                .map { String(decoding: $0.value, as: UTF8.self) }
            let negotiated =
                accepted.isEmpty ? nil : ContentCoding.negotiate(acceptEncoding: accepted.joined(separator: ","))
            if coding != "gzip" || negotiated != .gzip {
                problems.append("compressed (\(coding)) for a client that did not ask for gzip")
            }
            if response.plainText == nil { problems.append("a gzip answer that does not inflate") }
        }
        if request.isEventStream, status == 200 {
            let text = response.plainText ?? ""
            if !text.hasPrefix("retry: ") || !text.contains("event: patch") {
                problems.append("an event stream that does not open with retry and a patch")
            }
        }
        return problems
    }

    /// The statistics, for the test's output (and docs/reliability.md's table).
    func report(seed: UInt64, fuzzDuration: Duration, sessions: Int, stored: Int, orders: Int) {
        let state = state.withLock { $0 }
        let seconds = Double(fuzzDuration.components.seconds) + Double(fuzzDuration.components.attoseconds) / 1e18
        var lines: [String] = []
        lines.append(
            "Fuzz: seed \(FuzzTests.hex(seed)): \(state.requests) requests in \(state.messages) messages on "
                + "\(state.connections) connections in \(String(format: "%.1f", seconds)) s "
                + "(\(Int(Double(state.requests) / max(seconds, 0.001))) requests/s); "
                + "\(state.failureCount) failures")
        lines.append(
            "Fuzz: \(sessions) sessions in memory, \(stored) stored, \(orders) orders seen; "
                + "\(state.silentCloses) silent closes retried, \(state.closedWithoutAnswer) connections closed "
                + "without an answer (all by the HTTP parser's refusal unless listed as failures)")
        let statuses = state.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        lines.append("Fuzz: statuses " + statuses.joined(separator: ", "))
        let kinds = state.kinds.sorted { $0.key < $1.key }.map { kind, count in
            let time = state.time[kind].map { time in
                let milliseconds = Double(time.components.seconds) * 1e3 + Double(time.components.attoseconds) / 1e15
                return String(format: " (%.1f ms each)", milliseconds / Double(max(count, 1)))
            }
            return "  \(kind): \(count)\(time ?? "")"
        }
        lines.append("Fuzz: requests by kind\n" + kinds.joined(separator: "\n"))
        if !state.failureKinds.isEmpty {
            let failures = state.failureKinds.sorted { $0.value > $1.value }.map { "  \($0.value) × \($0.key)" }
            lines.append("Fuzz: failures\n" + failures.joined(separator: "\n"))
        }
        if !state.withoutSecurityHeaders.isEmpty {
            let missing = state.withoutSecurityHeaders.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            lines.append(
                "Fuzz: answers from the application without the security headers: " + missing.joined(separator: ", "))
        }
        print(lines.joined(separator: "\n"))
    }
}
