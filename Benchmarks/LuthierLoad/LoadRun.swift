import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// One run: the server it started, the streams it holds, and the phases in order.
///
/// Phases share one server so their numbers compare (pages against a trivial route of the same
/// process, memory per stream against the same idle process). Each phase has a deadline; a phase
/// that fails is reported and the next one still runs; the server is stopped in every case.
final class LoadRun: Sendable {
    struct Settings: Sendable {
        var connections: Int
        var rate: Double
        var changes: Int
        var kiosks: Int
        /// Orders placed in the broadcast phase, each after its own build: one event on this
        /// shared machine does not give a steady figure.
        var broadcastOrders: Int
        /// Customers who build, check out and order in the orders phase.
        var orders: Int
        /// Carts of each length in the cart phase.
        var cartSessions: Int
        var seconds: Double
        var concurrency: Int
        var nginx: String?
        var phases: Set<String>
        /// Streams ask for gzip (and are inflated), as a browser's are.
        var gzipStreams = false
        /// More instances of the same shop (host, port) the broadcast's kiosks are spread over,
        /// in turn with the one the orders are placed on.
        var kioskServers: [(host: String, port: Int)] = []
        /// Another instance of the same shop (host, port) the sessions' streams are opened on,
        /// while their pages and posts go to the first: a change crosses the database to its patch.
        var streamServer: (host: String, port: Int)?
    }

    /// A session with its cookie and its open `/events` stream.
    struct Session: Sendable {
        var cookie: String
        var stream: EventStream
    }

    let group: any EventLoopGroup
    let report: Report
    let root: URL
    let temporary: URL
    let phaseTimeout: Double
    let settings: Settings

    init(group: any EventLoopGroup, report: Report, root: URL, temporary: URL, phaseTimeout: Double, settings: Settings)
    {
        self.group = group
        self.report = report
        self.root = root
        self.temporary = temporary
        self.phaseTimeout = phaseTimeout
        self.settings = settings
    }

    var deadline: ContinuousClock.Instant { .now + .seconds(phaseTimeout) }

    func execute(luthierBinary: String) async {
        let port: Int
        do {
            port = try await freePort()
        } catch {
            report.fail("setup", "no free port: \(error)")
            return
        }
        let server = ChildProcess(
            name: "luthier", executable: luthierBinary,
            arguments: [
                "--host", "127.0.0.1", "--port", String(port),
                "--database", temporary.appendingPathComponent("luthier.sqlite").path,
                "--public", root.appendingPathComponent("Public").path,
                "--templates", root.appendingPathComponent("Templates").path,
                // Every simulated customer orders from 127.0.0.1.
                "--orders-per-hour-per-session", "100000", "--orders-per-hour-per-client", "1000000",
                "--scarce-wood-stock", "0",
                // Every simulated browser and kiosk connects from 127.0.0.1.
                "--max-event-streams-per-client", "100000", "--max-kiosk-streams", "12000",
            ],
            logURL: temporary.appendingPathComponent("luthier.log"))
        let client = LoadHTTPClient(group: group, host: "127.0.0.1", port: port)
        do {
            try server.start()
            let startup = try await waitUntilReady(client, server)
            if settings.phases.contains("startup") {
                report.add("startup", "spawn → first GET / 200 (5 ms polls)", Report.milliseconds(startup))
            }
            await runPhases(client, server)
        } catch {
            report.fail("setup", "\(error)")
            print("luthier log (last lines):\n\(server.logTail())")
        }
        await server.stop()
    }

    /// Runs the phases against a shop already running at `host`:`port` (one instance of several,
    /// say), started by someone else: what needs the server's process (its memory, its CPU time,
    /// its start-up) is left out and said so.
    func execute(host: String, port: Int) async {
        let client = LoadHTTPClient(group: group, host: host, port: port)
        do {
            let page = try await client.send(.GET, "/", timeout: 5)
            guard page.status == 200 else { throw LoadError.failure("GET / answered \(page.status)") }
        } catch {
            report.fail("setup", "\(host):\(port) does not serve the shop: \(error)")
            return
        }
        if settings.phases.contains("startup") {
            report.add("startup", "skipped", "the server was started by someone else (--url)")
        }
        await runPhases(client, nil)
    }

    private func runPhases(_ client: LoadHTTPClient, _ server: ChildProcess?) async {
        let phases = settings.phases
        var sessions: [Session] = []
        var idle: Int?
        if phases.contains("connections") || phases.contains("changes") {
            idle = server?.residentKiB()
            do {
                let started = ContinuousClock.now
                sessions = try await openSessions(client, count: settings.connections, until: deadline)
                if phases.contains("connections") {
                    report.add(
                        "connections", "\(sessions.count) sessions: GET / + /events open",
                        Report.milliseconds(ContinuousClock.now - started))
                    try? await Task.sleep(for: .milliseconds(500))
                    if let idle, let open = server?.residentKiB() {
                        report.add("connections", "server RSS idle → all open", "\(idle) KiB → \(open) KiB")
                        let perConnection = Double(open - idle) / Double(max(sessions.count, 1))
                        report.add("connections", "KiB per connection", Report.number(perConnection, 1))
                    } else {
                        report.add("connections", "server RSS", "unavailable (no /proc, or not our process)")
                    }
                }
            } catch {
                report.fail("connections", "\(error)")
            }
        }
        if phases.contains("changes") && !sessions.isEmpty {
            await changeLatency(client, sessions, server)
            // What the sessions hold once some have acted: their saved snapshots, and the steps each
            // session's flight recorder keeps.
            if let idle, let acted = server?.residentKiB() {
                let perSession = Double(acted - idle) / Double(sessions.count)
                report.add(
                    "changes", "server RSS after the changes, per session",
                    "\(acted) KiB: \(Report.number(perSession, 1)) KiB per session")
            }
        }
        for session in sessions { session.stream.close() }
        if phases.contains("broadcast") {
            do { try await broadcast(client, server) } catch { report.fail("broadcast", "\(error)") }
        }
        if phases.contains("orders") {
            do { try await ordersPerSecond(client, server) } catch { report.fail("orders", "\(error)") }
        }
        if phases.contains("pages") {
            if let server {
                do { try await pages(client, server) } catch { report.fail("pages", "\(error)") }
            } else {
                report.add("pages", "skipped", "it compares the server's own CPU time: run it on a server it starts")
            }
        }
        if phases.contains("static") {
            do { try await staticFiles(client) } catch { report.fail("static", "\(error)") }
        }
        if phases.contains("cart") {
            do { try await cartLines(client, server) } catch { report.fail("cart", "\(error)") }
        }
    }

    // MARK: Start-up

    private func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw LoadError.failure("bound socket has no port") }
        return port
    }

    /// Polls `GET /` every 5 ms until it answers 200; the time is taken from just before the spawn.
    private func waitUntilReady(_ client: LoadHTTPClient, _ server: ChildProcess) async throws -> Duration {
        let limit = server.startedAt + .seconds(max(phaseTimeout, 60))
        while ContinuousClock.now < limit {
            guard server.isRunning else {
                throw LoadError.failure("\(server.name) exited during start-up:\n\(server.logTail())")
            }
            if let response = try? await client.send(.GET, "/", timeout: 2), response.status == 200 {
                return ContinuousClock.now - server.startedAt
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw LoadError.failure("\(server.name) did not answer GET / within the bound")
    }

    // MARK: Streams

    func openSession(_ client: LoadHTTPClient, streamingOn streamClient: LoadHTTPClient) async throws
        -> Session
    {
        let page = try await client.send(.GET, "/")
        guard page.status == 200, let cookie = page.sessionCookie else {
            throw LoadError.failure("GET / answered \(page.status) without a session cookie")
        }
        return Session(
            cookie: cookie,
            stream: try await EventStream.open(
                client: streamClient, path: "/events", cookie: cookie, gzip: settings.gzipStreams))
    }

    /// Opens `count` sessions, 32 at a time (the server's accept backlog is finite), and waits
    /// until every stream has had its first patch.
    func openSessions(
        _ client: LoadHTTPClient, count: Int, until deadline: ContinuousClock.Instant
    ) async throws -> [Session] {
        let streamClient = settings.streamServer.map { LoadHTTPClient(group: group, host: $0.host, port: $0.port) }
        let sessions = try await boundedMap(count: count, until: deadline) { _ in
            try await self.openSession(client, streamingOn: streamClient ?? client)
        }
        try await waitForFirstPatch(sessions.map(\.stream), what: "session streams", until: deadline)
        return sessions
    }

    func boundedMap<T: Sendable>(
        count: Int, width: Int = 32, until deadline: ContinuousClock.Instant,
        _ body: @escaping @Sendable (Int) async throws -> T
    ) async throws -> [T] {
        try await withThrowingTaskGroup(of: T.self) { group in
            var results: [T] = []
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { try await body(index) }
                next += 1
            }
            while let result = try await group.next() {
                results.append(result)
                if next < count {
                    guard ContinuousClock.now < deadline else {
                        throw LoadError.failure("phase timeout after \(results.count) of \(count) connections")
                    }
                    let index = next
                    group.addTask { try await body(index) }
                    next += 1
                }
            }
            return results
        }
    }

    func waitForFirstPatch(
        _ streams: [EventStream], what: String, until deadline: ContinuousClock.Instant
    ) async throws {
        while ContinuousClock.now < deadline {
            if let reason = streams.lazy.compactMap(\.endReason).first {
                throw LoadError.failure("a stream of the \(what) ended: \(reason)")
            }
            if streams.allSatisfy(\.isOpen) { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        let open = streams.filter(\.isOpen).count
        throw LoadError.failure("\(streams.count - open) of \(streams.count) \(what) never got their first patch")
    }

    /// Waits (polling) until no stream has an expectation left or the deadline passes; returns how
    /// many are still waiting.
    func waitUntilSettled(_ streams: [EventStream], until deadline: ContinuousClock.Instant) async -> Int {
        while ContinuousClock.now < deadline {
            if !streams.contains(where: \.isBusy) { return 0 }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return streams.filter(\.isBusy).count
    }

    // MARK: Change latency

    /// Posts colour changes at a steady rate, each to a session that has no change in flight (so
    /// a session's patches cannot be merged), and times each to the patch on its own stream. With
    /// the server's own process, also its CPU time per answered change, from `/proc` before the
    /// first post and after the last patch: a saturated run shows as fewer answered changes and a
    /// lower rate achieved than asked, not as a cheaper change.
    private func changeLatency(_ client: LoadHTTPClient, _ sessions: [Session], _ server: ChildProcess?) async {
        // The colour each session shows, changed only by a post answered 204: after a refusal the
        // next post asks for the other colour again, so that it changes something.
        let skyShown = SessionFlags(count: sessions.count)
        let measured = await paced(sessions, phase: "changes", client: client, server: server) { chosen, _ in
            let sky = !skyShown[chosen]
            let (value, name) = sky ? ("sky", "Sky") : ("dusk", "Dusk")
            return PacedPost(
                path: "/build", form: "color=\(value)", target: "guitar-description", needle: name,
                answered: { skyShown[chosen] = sky })
        }
        report.add(
            "changes", "POST /build sent",
            "\(measured.sent) at \(Report.number(measured.rateAchieved, 1))/s (asked \(Report.number(settings.rate, 1))/s)"
        )
        report.add("changes", "answered 204", "\(measured.answered) of \(measured.sent)")
        let counts = measured.outcomes.counts
        for (kind, count) in counts.sorted(by: { $0.key < $1.key }) where kind != "answered 204" {
            report.add("changes", kind, "\(count) of \(measured.sent)")
        }
        report.add(
            "changes", "send → answer, any status (\(measured.outcomes.answerTimes.count))",
            measured.outcomes.answerTimes.summary([("p50", 0.5), ("p99", 0.99)]))
        if measured.outcomes.refusalTimes.count > 0 {
            report.add(
                "changes", "send → 503 (\(measured.outcomes.refusalTimes.count))",
                measured.outcomes.refusalTimes.summary([("p50", 0.5), ("p99", 0.99)]))
        }
        if let perChange = measured.cpuPerAnswered {
            report.add(
                "changes", "server CPU per answered change (/proc, post to patch)",
                "\(Report.number(perChange, 3)) ms (\(Report.number(measured.cpuSeconds ?? 0, 2)) s in all)")
        }
        report.add(
            "changes", "send → own patch (\(measured.latencies.count))",
            measured.latencies.summary([("p50", 0.5), ("p99", 0.99), ("p99.9", 0.999)]))
        report.add(
            "changes", "bytes on the wire per change (\(settings.gzipStreams ? "gzip" : "plain") streams)",
            Report.number(Double(measured.wireBytes) / Double(max(measured.sent, 1)), 0))
    }

    /// One change a paced run posts: where, what, and the patch that shows it on the session's
    /// own stream (a fragment `target` whose HTML holds `needle`; "" for any change of it).
    struct PacedPost {
        var path: String
        var form: String
        var target: String
        var needle: String
        /// Called when the post is answered `204`, before its patch is awaited.
        var answered: @Sendable () -> Void = {}
    }

    /// What a paced run came to.
    struct PacedChanges {
        var sent = 0
        var answered = 0
        var rateAchieved = 0.0
        var latencies = Percentiles([])
        var wireBytes = 0
        /// The server's CPU time over the run, and per answered change in milliseconds.
        var cpuSeconds: Double?
        /// Every post by what became of it, and the time to its answer.
        let outcomes = PostOutcomes()
        var cpuPerAnswered: Double? { cpuSeconds.map { $0 / Double(max(answered, 1)) * 1_000 } }
    }

    /// Posts `changes` (by default `settings.changes`) changes at `settings.rate`, each to the next session with no change
    /// in flight, the change `post` makes for it (given the session's index and the change's),
    /// and waits for each one's patch on its own stream.
    func paced(
        _ sessions: [Session], phase: String, client: LoadHTTPClient, server: ChildProcess?, changes: Int? = nil,
        post: (_ session: Int, _ change: Int) -> PacedPost
    ) async -> PacedChanges {
        let deadline = self.deadline
        let report = self.report
        let interval = 1.0 / max(settings.rate, 0.001)
        var cursor = 0
        var result = PacedChanges()
        let wireBefore = sessions.reduce(0) { $0 + $1.stream.wireBytes }
        let answered = Counter()
        let outcomes = result.outcomes
        let cpuBefore = server?.cpuSeconds()
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<(changes ?? settings.changes) {
                let due = start + .seconds(Double(index) * interval)
                if due > .now { try? await Task.sleep(until: due) }
                var chosen: Int?
                while chosen == nil && ContinuousClock.now < deadline {
                    chosen = (0..<sessions.count).lazy.map { (cursor + $0) % sessions.count }
                        .first { !sessions[$0].stream.isBusy }
                    if chosen == nil { try? await Task.sleep(for: .milliseconds(1)) }
                }
                guard let chosen else {
                    // The loop ends only at the deadline: either every session was still
                    // waiting for its patch, or the run asks more time than a phase is given.
                    let planned = Report.number(Double(changes ?? settings.changes) * interval, 0)
                    report.fail(
                        phase,
                        "phase timeout after \(index) of \(changes ?? settings.changes) changes: the run is planned"
                            + " to take \(planned) s against --phase-timeout \(Report.number(phaseTimeout, 0)) s,"
                            + " or every session was still waiting for a patch")
                    break
                }
                cursor = (chosen + 1) % sessions.count
                let change = post(chosen, index)
                let session = sessions[chosen]
                session.stream.expect(target: change.target, needle: change.needle)
                result.sent += 1
                group.addTask {
                    let posted = ContinuousClock.now
                    do {
                        let response = try await client.send(
                            .POST, change.path, cookie: session.cookie, form: change.form,
                            extra: [("X-Requested-With", "fetch")])
                        let retryAfter = response.headers.first(name: "retry-after")
                        outcomes.answered(
                            status: response.status, retryAfter: retryAfter, after: response.answeredAt - posted)
                        if response.status == 204 {
                            change.answered()
                            answered.increment()
                            session.stream.markSent(at: response.sentAt)
                        } else {
                            session.stream.cancelExpectation()
                            // Load shed on purpose is counted, not failed: past its ceiling the
                            // server is to refuse at once and say when to come back.
                            if response.status != 503 || retryAfter == nil {
                                report.fail(phase, "POST \(change.path) answered \(response.status)")
                            }
                        }
                    } catch {
                        session.stream.cancelExpectation()
                        outcomes.failed(error)
                        report.fail(phase, "POST \(change.path) failed: \(PostOutcomes.kind(of: error))")
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        let streams = sessions.map(\.stream)
        let missing = await waitUntilSettled(streams, until: min(deadline, .now + .seconds(15)))
        if missing > 0 { report.fail(phase, "\(missing) changes whose patch never arrived") }
        if let cpuBefore, let cpuAfter = server?.cpuSeconds() { result.cpuSeconds = cpuAfter - cpuBefore }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        result.rateAchieved = Double(result.sent) / max(seconds, 0.001)
        result.answered = answered.value
        result.latencies = Percentiles(streams.flatMap(\.latencies))
        result.wireBytes = streams.reduce(0) { $0 + $1.wireBytes } - wireBefore
        return result
    }

    // MARK: Broadcast

    /// Opens the kiosks, places one order, and times the order to each kiosk's `kiosk-orders` patch.
    private func broadcast(_ client: LoadHTTPClient, _ server: ChildProcess?) async throws {
        let deadline = self.deadline
        let before = server?.residentKiB()
        let started = ContinuousClock.now
        // The kiosks in turn on the orders' instance and on each other one given: an order placed
        // on the first reaches the others through the database (PostgreSQL's NOTIFY).
        let kioskClients =
            [client] + settings.kioskServers.map { LoadHTTPClient(group: group, host: $0.host, port: $0.port) }
        let kiosks = try await boundedMap(count: settings.kiosks, until: deadline) { index in
            try await EventStream.open(
                client: kioskClients[index % kioskClients.count], path: "/kiosk/events", cookie: nil,
                gzip: self.settings.gzipStreams)
        }
        // The builder's picture shows only on the kiosks of the instance it was built on.
        let localKiosks = kiosks.enumerated().filter { $0.offset % kioskClients.count == 0 }.map(\.element)
        defer { for kiosk in kiosks { kiosk.close() } }
        try await waitForFirstPatch(kiosks, what: "kiosk streams", until: deadline)
        report.add(
            "broadcast", "\(kiosks.count) kiosk streams open (over \(kioskClients.count) instance(s))",
            Report.milliseconds(.now - started))
        try? await Task.sleep(for: .milliseconds(500))
        if let before, let open = server?.residentKiB() {
            // A stream without a session: what the connection and the stream alone cost.
            let perStream = Double(open - before) / Double(max(kiosks.count, 1))
            report.add("broadcast", "server RSS per kiosk stream", "\(Report.number(perStream, 1)) KiB")
        }

        // The floor to compare with: as many streams on a bare SwiftNIO server, sent an event of
        // the same size in turn with each order, so that both see the machine as it is then.
        var bare: (server: BareBroadcastServer, streams: [EventStream])?
        if settings.phases.contains("bare-broadcast") {
            let server = try await BareBroadcastServer.start(threads: System.coreCount)
            let bareClient = LoadHTTPClient(group: group, host: "127.0.0.1", port: server.port)
            let streams = try await boundedMap(count: settings.kiosks, until: deadline) { _ in
                try await EventStream.open(client: bareClient, path: "/kiosk/events", cookie: nil)
            }
            try await waitForFirstPatch(streams, what: "bare streams", until: deadline)
            bare = (server, streams)
        }
        var showcase: [Duration] = []
        var orders: [Duration] = []
        // With kiosks on other instances, the order's latency to its own instance's kiosks and to
        // the others', apart: the others' cost the database's notification and a read of the order.
        var ordersHere: [Duration] = []
        var ordersElsewhere: [Duration] = []
        var bareEvents: [Duration] = []
        var rounds: [String] = []
        var wireOfOrders = 0
        let points = [("first", 0.0), ("p50", 0.5), ("p99", 0.99)]
        for round in 1...settings.broadcastOrders {
            // The build that makes the order possible sends its picture to every kiosk (the
            // showcase, about 12 KB each): timed on its own, and settled before the order, so that
            // the order's figure is the order's broadcast and not the tail of the picture's.
            for kiosk in localKiosks { kiosk.expect(target: "kiosk-showcase", needle: "") }
            // A colour unlike the last round's: a kiosk shows a guitar it already shows no again.
            let cookie = try await checkedOutSession(
                client, color: ["earth", "sky", "dusk"][(round - 1) % 3],
                builtAt: { sent in
                    for kiosk in localKiosks { kiosk.markSent(at: sent) }
                })
            if await waitUntilSettled(localKiosks, until: min(deadline, .now + .seconds(15))) > 0 {
                report.fail("broadcast", "some kiosks never got the builder's picture in round \(round)")
            }
            showcase += localKiosks.flatMap { $0.takeLatencies() }
            try? await Task.sleep(for: .milliseconds(200))
            for kiosk in kiosks { kiosk.expect(target: "kiosk-orders", needle: "") }
            let wireBeforeOrder = kiosks.reduce(0) { $0 + $1.wireBytes }
            let order = try await client.send(
                .POST, "/checkout/order", cookie: cookie, extra: [("X-Requested-With", "fetch")])
            guard order.status == 204 else {
                throw LoadError.failure("POST /checkout/order answered \(order.status): \(order.text)")
            }
            for kiosk in kiosks { kiosk.markSent(at: order.sentAt) }
            let missing = await waitUntilSettled(kiosks, until: min(deadline, .now + .seconds(15)))
            if missing > 0 { report.fail("broadcast", "\(missing) kiosks never got the order") }
            wireOfOrders += kiosks.reduce(0) { $0 + $1.wireBytes } - wireBeforeOrder
            var thisOrder: [Duration] = []
            for (index, kiosk) in kiosks.enumerated() {
                let latencies = kiosk.takeLatencies()
                thisOrder += latencies
                if index % kioskClients.count == 0 { ordersHere += latencies } else { ordersElsewhere += latencies }
            }
            orders += thisOrder
            var line = "order \(Percentiles(thisOrder).summary([("p50", 0.5), ("p99", 0.99)]))"
            if let bare {
                try? await Task.sleep(for: .milliseconds(200))
                let bytes = wireOfOrders / round / max(kiosks.count, 1)
                let event = BareBroadcastServer.chunk(
                    BareBroadcastServer.patch(target: "kiosk-orders", id: round, bytes: bytes))
                for stream in bare.streams { stream.expect(target: "kiosk-orders", needle: "") }
                let sent = ContinuousClock.now
                for stream in bare.streams { stream.markSent(at: sent) }
                bare.server.fanOut(event)
                if await waitUntilSettled(bare.streams, until: min(deadline, .now + .seconds(15))) > 0 {
                    report.fail("bare-broadcast", "some streams never got the event")
                }
                let thisEvent = bare.streams.flatMap { $0.takeLatencies() }
                bareEvents += thisEvent
                line += "; bare \(Percentiles(thisEvent).summary([("p50", 0.5), ("p99", 0.99)]))"
            }
            rounds.append(line)
            try? await Task.sleep(for: .milliseconds(200))
        }
        if let bare {
            for stream in bare.streams { stream.close() }
            await bare.server.stop()
        }
        report.add(
            "broadcast", "build → kiosk-showcase patch (\(showcase.count))", Percentiles(showcase).summary(points))
        report.add(
            "broadcast", "order → kiosk-orders patch (\(orders.count), \(settings.broadcastOrders) orders)",
            Percentiles(orders).summary(points))
        if !settings.kioskServers.isEmpty {
            report.add(
                "broadcast", "order → kiosks on its own instance (\(ordersHere.count))",
                Percentiles(ordersHere).summary(points))
            report.add(
                "broadcast",
                "order → kiosks on the \(settings.kioskServers.count) other instance(s) (\(ordersElsewhere.count))",
                Percentiles(ordersElsewhere).summary(points))
        }
        if bare != nil {
            report.add(
                "broadcast", "event → \(kiosks.count) bare SwiftNIO streams (\(bareEvents.count))",
                Percentiles(bareEvents).summary(points))
        }
        for (index, line) in rounds.enumerated() { report.add("broadcast", "round \(index + 1)", line) }
        report.add(
            "broadcast", "bytes on the wire per kiosk per order (\(settings.gzipStreams ? "gzip" : "plain") streams)",
            Report.number(Double(wireOfOrders) / Double(max(kiosks.count * settings.broadcastOrders, 1)), 0))
    }

    /// A new session whose builder has been checked out (`POST /checkout` answered 204).
    func checkedOutSession(
        _ client: LoadHTTPClient, color: String = "earth", builtAt: (ContinuousClock.Instant) -> Void = { _ in }
    ) async throws -> String {
        let page = try await client.send(.GET, "/")
        guard page.status == 200, let cookie = page.sessionCookie else {
            throw LoadError.failure("GET / answered \(page.status) without a session cookie")
        }
        let fetch = [("X-Requested-With", "fetch")]
        let build = try await client.send(.POST, "/build", cookie: cookie, form: "color=\(color)", extra: fetch)
        guard build.status == 204 else { throw LoadError.failure("POST /build answered \(build.status)") }
        builtAt(build.sentAt)
        let checkout = try await client.send(.POST, "/checkout", cookie: cookie, extra: fetch, timeout: 30)
        guard checkout.status == 204 else {
            throw LoadError.failure("POST /checkout answered \(checkout.status): \(checkout.text)")
        }
        return cookie
    }

    // MARK: Pages and static files

    /// Rounds each rate comparison is split into: the routes (or servers) compared take turns, a
    /// round each, so that a slow second on this shared machine falls on both sides of a ratio
    /// rather than on one.
    private static let rounds = 4

    /// Requests per second of each of `routes`, measured in turns (``rounds``), each for its share
    /// of `--seconds`.
    private func rates(_ routes: [(LoadHTTPClient, String, String?, [(String, String)])], phase: String)
        async throws -> [Double]
    {
        var totals = Array(repeating: 0.0, count: routes.count)
        for _ in 0..<Self.rounds {
            for (index, (client, path, cookie, extra)) in routes.enumerated() {
                totals[index] += try await throughput(
                    client, path, cookie: cookie, extra: extra, phase: phase,
                    seconds: settings.seconds / Double(Self.rounds))
            }
        }
        return totals.map { $0 / Double(Self.rounds) }
    }

    private func pages(_ client: LoadHTTPClient, _ server: ChildProcess) async throws {
        let cookie = try await checkedOutSession(client)
        // As a browser asks: the page compressed (its two cached segments around the version).
        let gzip = [("Accept-Encoding", "gzip, deflate, br")]
        let plainBytes = try await client.send(.GET, "/", cookie: cookie).body.readableBytes
        let probe = try await client.send(.GET, "/", cookie: cookie, extra: gzip)
        let encoding = probe.headers["content-encoding"].first ?? "identity"
        let measured = try await rates(
            [
                (client, "/healthz", cookie, []), (client, "/", cookie, []), (client, "/checkout", cookie, []),
                (client, "/", cookie, gzip),
            ], phase: "pages")
        let (trivial, builder, checkout, compressed) = (measured[0], measured[1], measured[2], measured[3])
        report.add(
            "pages", "GET /healthz (trivial route; \(Self.rounds) rounds, in turn with the others)",
            "\(Report.number(trivial, 0)) req/s")
        report.add("pages", "GET /", "\(Report.number(builder, 0)) req/s (\(ratio(builder, trivial)) of trivial)")
        report.add(
            "pages", "GET /checkout", "\(Report.number(checkout, 0)) req/s (\(ratio(checkout, trivial)) of trivial)")
        report.add(
            "pages", "GET / compressed (\(encoding), \(probe.body.readableBytes) of \(plainBytes) bytes)",
            "\(Report.number(compressed, 0)) req/s (\(ratio(compressed, trivial)) of trivial)")
        try await pageBytesFloor(client, server, cookie: cookie, page: probe)
    }

    /// What the compressed page's bytes alone cost, measured with no work behind them: nginx
    /// serves luthier's own compressed `/` answer and `/healthz` body, byte for byte, in turns with
    /// luthier's two routes. nginx's extra CPU time per page request (over its trivial one) is the
    /// bytes' share on the server's side (a larger write through the kernel's loopback); added to
    /// luthier's own CPU time per `/healthz`, it gives the best ratio any server could reach here
    /// with these bytes, against which luthier's is read. CPU time per request is measured beside
    /// the rate because on this shared machine it moves far less than a rate does.
    private func pageBytesFloor(
        _ client: LoadHTTPClient, _ server: ChildProcess, cookie: String, page: LoadHTTPClient.Response
    ) async throws {
        guard let nginxPath = settings.nginx, FileManager.default.isExecutableFile(atPath: nginxPath) else {
            report.add("pages", "the bytes' floor (nginx)", settings.nginx == nil ? "skipped (--smoke)" : "no nginx")
            return
        }
        let healthz = try await client.send(.GET, "/healthz")
        // The plain page is there only as gzip_static wants it; every request here takes the `.gz`.
        let plain = try await client.send(.GET, "/", cookie: cookie)
        let gzip = [("Accept-Encoding", "gzip, deflate, br")]
        let nginx = try await NginxServer.start(
            binary: nginxPath,
            files: [
                "healthz": Data(healthz.body.readableBytesView), "page.html": Data(plain.body.readableBytesView),
                "page.html.gz": Data(page.body.readableBytesView),
            ],
            folder: temporary.appendingPathComponent("nginx-pages"), port: try await freePort(), group: group)
        // Bare Hummingbird with the same bytes, when luthier-floor was built beside this tool.
        var floor: FloorServer?
        do {
            if let binary = FloorServer.binary {
                floor = try await FloorServer.start(
                    binary: binary, healthz: Data(healthz.body.readableBytesView),
                    compressedPage: Data(page.body.readableBytesView),
                    folder: temporary.appendingPathComponent("floor"), port: try await freePort(), group: group)
            } else {
                report.add("pages", "bare Hummingbird floor", "not built (swift build --product luthier-floor)")
            }
        } catch {
            await nginx.process.stop()
            throw error
        }
        do {
            var routes: [(ChildProcess, LoadHTTPClient, String, String?, [(String, String)])] = [
                (server, client, "/healthz", cookie, []), (server, client, "/", cookie, gzip),
                (nginx.process, nginx.client, "/healthz", nil, []),
                (nginx.process, nginx.client, "/page.html", nil, gzip),
            ]
            if let floor {
                routes += [
                    (floor.process, floor.client, "/healthz", nil, []),
                    (floor.process, floor.client, "/page.html", nil, gzip),
                ]
            }
            var rates = Array(repeating: 0.0, count: routes.count)
            var cpu = Array(repeating: 0.0, count: routes.count)
            var requests = Array(repeating: 0.0, count: routes.count)
            let share = settings.seconds / Double(Self.rounds)
            for _ in 0..<Self.rounds {
                for (index, (process, client, path, cookie, extra)) in routes.enumerated() {
                    let before = process.cpuSeconds() ?? 0
                    let rate = try await throughput(
                        client, path, cookie: cookie, extra: extra, phase: "pages", seconds: share)
                    cpu[index] += (process.cpuSeconds() ?? 0) - before
                    rates[index] += rate / Double(Self.rounds)
                    requests[index] += rate * share
                }
            }
            let perRequest = zip(cpu, requests).map { $1 > 0 ? $0 / $1 * 1_000_000 : 0 }
            let bytesCost = max(perRequest[3] - perRequest[2], 0)
            let best = perRequest[0] / (perRequest[0] + bytesCost)
            var lines = [
                ("luthier GET /healthz", 0), ("luthier GET / compressed", 1), ("nginx, the same /healthz body", 2),
                ("nginx, the same \(page.body.readableBytes) bytes of page", 3),
            ]
            if floor != nil {
                lines += [("bare Hummingbird, the same /healthz body", 4), ("bare Hummingbird, the same page", 5)]
            }
            for (label, index) in lines {
                report.add(
                    "pages", "\(label) (in turns)",
                    "\(Report.number(rates[index], 0)) req/s, \(Report.number(perRequest[index], 1)) µs CPU per request"
                )
            }
            report.add(
                "pages", "luthier GET / compressed ÷ /healthz: by rate, by CPU per request",
                "\(ratio(rates[1], rates[0])), \(ratio(perRequest[0], perRequest[1]))")
            report.add(
                "pages", "the bytes alone (nginx page − nginx trivial)",
                "\(Report.number(bytesCost, 1)) µs CPU per request")
            report.add(
                "pages", "the best ratio luthier's /healthz leaves with these bytes (by CPU)", Report.number(best, 3))
            if floor != nil {
                report.add(
                    "pages", "luthier ÷ bare Hummingbird, CPU per request: /healthz, compressed page",
                    "\(ratio(perRequest[0], perRequest[4])), \(ratio(perRequest[1], perRequest[5]))")
            }
        } catch {
            await nginx.process.stop()
            await floor?.process.stop()
            throw error
        }
        await nginx.process.stop()
        await floor?.process.stop()
    }

    private func staticFiles(_ client: LoadHTTPClient) async throws {
        let gzip = [("Accept-Encoding", "gzip")]
        let probe = try await client.send(.GET, "/styles.css", extra: gzip)
        let encoding = probe.headers["content-encoding"].first ?? "identity"
        guard let nginxPath = settings.nginx else {
            let luthier = try await throughput(client, "/styles.css", extra: gzip, phase: "static")
            report.add("static", "luthier /styles.css (\(encoding))", "\(Report.number(luthier, 0)) req/s")
            report.add("static", "nginx", "skipped (--smoke)")
            return
        }
        guard FileManager.default.isExecutableFile(atPath: nginxPath) else {
            let luthier = try await throughput(client, "/styles.css", extra: gzip, phase: "static")
            report.add("static", "luthier /styles.css (\(encoding))", "\(Report.number(luthier, 0)) req/s")
            report.add("static", "nginx", "not found at \(nginxPath): no comparison")
            return
        }
        let nginx = try await NginxServer.start(
            binary: nginxPath, files: try NginxServer.stylesheet(root.appendingPathComponent("Public/styles.css")),
            folder: temporary.appendingPathComponent("nginx"), port: try await freePort(), group: group)
        do {
            let nginxProbe = try await nginx.client.send(.GET, "/styles.css", extra: gzip)
            let nginxEncoding = nginxProbe.headers["content-encoding"].first ?? "identity"
            let measured = try await rates(
                [(client, "/styles.css", nil, gzip), (nginx.client, "/styles.css", nil, gzip)], phase: "static")
            let (luthier, rate) = (measured[0], measured[1])
            report.add(
                "static", "luthier /styles.css (\(encoding); \(Self.rounds) rounds, in turn with nginx)",
                "\(Report.number(luthier, 0)) req/s")
            report.add("static", "nginx /styles.css (\(nginxEncoding), gzip_static)", "\(Report.number(rate, 0)) req/s")
            report.add("static", "luthier / nginx", ratio(luthier, rate))
        } catch {
            await nginx.process.stop()
            throw error
        }
        await nginx.process.stop()
    }

    private func ratio(_ value: Double, _ base: Double) -> String {
        base > 0 ? Report.number(value / base, 3) : "-"
    }

    /// Requests per second of one route: `concurrency` keep-alive connections, each sending the
    /// next request when the last response ended, for `seconds`. Non-200 answers are failures. A
    /// connection the server closes is opened again (and counted), so a server's keep-alive policy
    /// cannot end the measurement early.
    private func throughput(
        _ client: LoadHTTPClient, _ path: String, cookie: String? = nil, extra: [(String, String)] = [],
        phase: String, seconds: Double? = nil
    ) async throws -> Double {
        let seconds = seconds ?? settings.seconds
        let end = ContinuousClock.now + .seconds(seconds)
        let report = self.report
        let head = client.head(.GET, path, cookie: cookie, extra: extra, keepAlive: true)
        let (total, reconnects) = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<settings.concurrency {
                group.addTask {
                    var ok = 0
                    var reconnects = -1
                    while ContinuousClock.now < end {
                        reconnects += 1
                        do {
                            ok += try await Self.requests(client, head, until: end, seconds: seconds) { status in
                                report.fail(phase, "GET \(path) answered \(status)")
                            }
                        } catch LoadError.closedBeforeResponse {
                            continue
                        } catch {
                            report.fail(phase, "GET \(path) failed: \(error)")
                            break
                        }
                    }
                    return (ok, max(reconnects, 0))
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        if reconnects > 0 {
            report.add(phase, "GET \(path): connections the server closed", "\(reconnects) (opened again)")
        }
        return Double(total) / seconds
    }

    /// Sends `head` on one keep-alive connection until `end` or until the server closes it;
    /// returns the 200 answers counted.
    private static func requests(
        _ client: LoadHTTPClient, _ head: HTTPRequestHead, until end: ContinuousClock.Instant, seconds: Double,
        failed: @escaping @Sendable (Int) -> Void
    ) async throws -> Int {
        let connection = try await client.connect()
        let channel = connection.channel
        let closer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64((seconds + 10) * 1000))) {
            channel.close(promise: nil)
        }
        defer { closer.cancel() }
        return try await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var ok = 0
            while ContinuousClock.now < end {
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
                let response = try await LoadHTTPClient.readResponse(&iterator, sentAt: .now)
                if response.status == 200 { ok += 1 } else { failed(response.status) }
                if response.headers["connection"].contains(where: { $0.lowercased() == "close" }) { break }
            }
            return ok
        }
    }
}

/// A flag per session that the paced run's tasks set and its loop reads.
final class SessionFlags: Sendable {
    private let flags: Mutex<[Bool]>

    init(count: Int) {
        flags = Mutex(Array(repeating: false, count: count))
    }

    subscript(index: Int) -> Bool {
        get { flags.withLock { $0[index] } }
        set { flags.withLock { $0[index] = newValue } }
    }
}
