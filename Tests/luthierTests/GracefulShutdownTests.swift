import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGTERM and SIGINT: the server stops taking connections, ends every event stream cleanly (the
/// browser's `EventSource` then reconnects after the `retry:` it was given at the start), answers
/// the orders it is in the middle of, and exits with status 0 within `exitBound`.
@Suite("Process: graceful shutdown on SIGTERM and SIGINT")
struct GracefulShutdownTests {
    /// The documented bound between the signal and the exit.
    static let exitBound = Duration.seconds(10)

    struct Signal: Sendable, CustomTestStringConvertible {
        var number: Int32
        var testDescription: String
    }

    static let signals = [
        Signal(number: SIGTERM, testDescription: "SIGTERM"), Signal(number: SIGINT, testDescription: "SIGINT"),
    ]

    /// With `--simulate-latency` an order takes the workshop 1–2 s, so the signal lands while the
    /// orders are being placed: the streams show "Ordering…" when it is sent.
    @Test(arguments: signals)
    func inFlightOrdersFinishStreamsEndAndTheProcessExits(signal: Signal) async throws {
        try await withShop { bench, client in
            let server = try await bench.startServer(arguments: ["--simulate-latency"])
            let customer = Customer(client: client, server: server.baseURL)
            let guitars = [
                GuitarChoice(shape: "longV", body: "koa", fretboard: "ebony"),
                GuitarChoice(color: "sky"),
                GuitarChoice(shape: "sharpV", body: "swampAsh", fretboard: "birdseyeMaple"),
            ]
            let cookies = try await withThrowingTaskGroup(of: String.self) { group in
                for guitar in guitars { group.addTask { try await customer.checkedOut(guitar) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // Two tabs per session, and a kiosk.
            var streams: [EventStreamReader] = []
            for cookie in cookies {
                for _ in 0..<2 {
                    streams.append(try await EventStreamReader.open(server.url("/events"), cookie: cookie, on: client))
                }
            }
            let kiosk = try await EventStreamReader.open(server.url("/kiosk/events"), cookie: nil, on: client)
            defer { (streams + [kiosk]).forEach { $0.cancel() } }
            for stream in streams + [kiosk] {
                try await stream.waitUntilText("the stream opened") {
                    $0.hasPrefix("retry: ") && $0.contains("event: patch")
                }
            }

            let orders = cookies.map { cookie in Task { try await customer.order(cookie: cookie) } }
            for stream in streams {
                try await stream.waitUntilText("the order is being placed") { $0.contains("Ordering") }
            }

            let signalled = ContinuousClock.now
            server.send(signal.number)

            // New connections are refused while the orders are still being placed.
            try await waitUntil("new connections are refused", limit: .seconds(5), pollEvery: .milliseconds(5)) {
                connectionRefused(port: server.port)
            }
            let refusedAfter = signalled.duration(to: .now)
            let stillRunningWhenRefusing = server.isRunning

            for stream in streams + [kiosk] {
                let end = try await stream.waitForEnd(limit: Self.exitBound)
                #expect(end == .finished, "a stream was cut rather than ended: \(end)")
                // The kiosk's delay is spread over a range, so that a room of kiosks comes back in turn.
                let ending = String(stream.text.suffix(80))
                let hinted = ending.contains(": the server is stopping; reconnect\nretry: ") && ending.hasSuffix("\n\n")
                #expect(hinted, "a stream ended without a reconnect hint: \(ending)")
            }
            let streamsEndedAfter = signalled.duration(to: .now)

            var answers: [ShopResponse] = []
            for order in orders { answers.append(try await order.value) }
            #expect(answers.map(\.status) == [204, 204, 204], "\(answers)")

            let exit = try await server.waitForExit(within: Self.exitBound)
            let exitedAfter = signalled.duration(to: .now)
            #expect(exit == .init(code: 0, bySignal: false), "\(exit)\n\(bench.outputs)")
            #expect(exitedAfter < Self.exitBound)

            // Every answered order is stored whole, and its session shows it after a restart.
            let database = try ShopDatabase(bench.database)
            let stored = try database.orders()
            #expect(stored.count == 3)
            #expect(stored.values.allSatisfy { $0.lines.count == 1 })
            let restarted = try await bench.startServer()
            for cookie in cookies {
                let page = try await client.get(restarted.url("/checkout"), cookie: cookie)
                let number = try #require(page.orderNumber, "\(page)")
                #expect(stored[number] != nil)
            }
            #expect(
                ShopDatabase.violations(
                    initial: ShopDatabase.seededStock, stock: try database.stock(), orders: stored
                ).isEmpty)
            print(
                "[reliability] \(signal.testDescription) with 3 orders in flight and \(streams.count + 1) streams: "
                    + "refused new connections after \(refusedAfter.milliseconds) ms "
                    + "(process still running: \(stillRunningWhenRefusing)), streams ended after "
                    + "\(streamsEndedAfter.milliseconds) ms, exited \(exit) after \(exitedAfter.milliseconds) ms; "
                    + "\(answers.count) orders answered 204, \(stored.count) stored")
        }
    }

    /// Nothing in flight, many open streams: the process is gone at once.
    @Test func anIdleServerWithManyStreamsExitsAtOnce() async throws {
        try await withShop { bench, client in
            let server = try await bench.startServer()
            var streams: [EventStreamReader] = []
            for index in 0..<40 {
                let cookie = try await client.newSession(on: server.baseURL)
                let path = index % 4 == 0 ? "/kiosk/events" : "/events"
                streams.append(try await EventStreamReader.open(server.url(path), cookie: cookie, on: client))
            }
            defer { streams.forEach { $0.cancel() } }
            for stream in streams {
                try await stream.waitUntilText("the stream opened") { $0.contains("event: patch") }
            }

            let signalled = ContinuousClock.now
            server.send(SIGTERM)
            let exit = try await server.waitForExit(within: Self.exitBound)
            let exitedAfter = signalled.duration(to: .now)
            #expect(exit == .init(code: 0, bySignal: false), "\(exit)\n\(bench.outputs)")
            for stream in streams {
                let end = try await stream.waitForEnd(limit: .seconds(5))
                #expect(end == .finished, "\(stream.text.suffix(200))")
            }
            #expect(connectionRefused(port: server.port))
            print(
                "[reliability] SIGTERM with \(streams.count) idle streams: exited after \(exitedAfter.milliseconds) ms")
        }
    }

    #if os(Linux)
        /// A stream reader that stopped reading (the server's writes to it stuck on a full socket) and
        /// a request body that never comes cannot hold the process past the bound; on their own they
        /// would hold it until their time-outs (30 s for a stalled reader, 10 s for a body).
        @Test func stalledClientsCannotHoldTheShutdownPastTheBound() async throws {
            try await withShop { bench, client in
                let server = try await bench.startServer()
                let cookie = try await client.newSession(on: server.baseURL)
                let reader = try RawConnection(port: server.port, receiveBuffer: 4_096)
                try reader.send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: luthier_session=\(cookie)\r\n\r\n")
                let trickle = try RawConnection(port: server.port)
                try trickle.send(
                    "POST /build HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Content-Length: 100\r\n\r\nshape=")

                // Change the guitar, one change at a time so that each is a patch of its own, until the
                // server's send queue to the reader stops growing: its socket is full and the
                // stream's write waits.
                let customer = Customer(client: client, server: server.baseURL)
                var queued = 0
                var changes = 0
                var steadyRounds = 0
                while steadyRounds < 2 {
                    for _ in 0..<10 {
                        let form =
                            "color=\(GuitarChoice.colors[changes % 4])&shape=\(GuitarChoice.shapes[changes / 4 % 4])"
                        try await customer.post("/build", form: form, cookie: cookie)
                        changes += 1
                    }
                    let now = reader.serverSendQueue(serverPort: server.port) ?? 0
                    steadyRounds = now > 0 && now == queued ? steadyRounds + 1 : 0
                    queued = now
                    guard changes < 600 else {
                        throw TestFailure(
                            "the reader's queue never filled (\(queued) bytes after \(changes) changes); reader port "
                                + "\(reader.localPort), unread \(reader.unread) bytes: \(reader.peek()); \(reader.tcpTableLines)\n\(bench.outputs)"
                        )
                    }
                }
                // The kernel holds no more for it than the fixed send buffer (64 KiB, doubled by Linux).
                #expect(queued <= 128 * 1024, "\(queued) bytes queued to a reader that stopped reading")

                let signalled = ContinuousClock.now
                server.send(SIGTERM)
                let exit = try await server.waitForExit(within: Self.exitBound)
                // The misbehaving clients stay connected until the server is gone.
                withExtendedLifetime((reader, trickle)) {}
                let exitedAfter = signalled.duration(to: .now)
                #expect(exit == .init(code: 0, bySignal: false), "\(exit)\n\(bench.outputs)")
                print(
                    "[reliability] SIGTERM with a stalled stream reader (\(queued) bytes queued after \(changes) "
                        + "changes) and a trickling body: exited after \(exitedAfter.milliseconds) ms")
            }
        }
    #endif
}
