import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// PostgreSQL misbehaving under a running instance: refusing a session's writes, and restarted.
@Suite(
    "Process: PostgreSQL refusing writes, and restarted under an instance",
    .enabled(if: PostgresDatabase.serverURL != nil, "needs PostgreSQL (LUTHIER_TEST_POSTGRES_URL)"))
struct PostgresFaultTests {
    static let leads = "This instance runs the workshop floor"

    /// The tester's third fault: a trigger refusing every write to `sessions`. An add to cart and
    /// a builder change are refused; no page and no stream shows either; once the trigger is gone
    /// the retry adds one guitar, and that is what is stored.
    @Test func aChangePostgreSQLRefusesToStoreIsShownNowhereAndItsRetryAppliesOnce() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        let shop = PostgresShop(url: database)
        try await withShop { bench, client in
            let server = try await bench.startServer(arguments: ["--database", database])
            let cookie = try await client.newSession(on: server.baseURL)
            #expect(try await client.post(server.url("/build"), form: "shape=longV", cookie: cookie).status == 204)
            let stream = try await EventStreamReader.open(server.url("/events"), cookie: cookie, on: client)
            try await stream.waitUntilText("the stream's first patch") { $0.contains("event: patch") }

            _ = try shop.rows(
                """
                CREATE FUNCTION refuse_session_writes() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'sessions are read-only for this test'; END $$;
                CREATE TRIGGER refuse_session_writes BEFORE INSERT OR UPDATE ON sessions
                FOR EACH ROW EXECUTE FUNCTION refuse_session_writes();
                """)
            let refusedAdd = try await client.post(server.url("/cart/items"), form: "", cookie: cookie)
            let refusedColor = try await client.post(server.url("/build"), form: "color=dusk", cookie: cookie)
            for answer in [refusedAdd, refusedColor] {
                #expect(answer.status == 503, "\(answer)")
                #expect(answer.text.contains("could not be saved"), "\(answer)")
            }
            let page = try await client.get(server.url("/"), cookie: cookie)
            #expect(DatabaseFaultTests.badgeCounts(in: page.text) == ["0"], "\(page)")
            #expect(DatabaseFaultTests.description(in: page.text)?.hasPrefix("Natural Long V") == true)
            _ = try shop.rows("DROP TRIGGER refuse_session_writes ON sessions")

            #expect(try await client.post(server.url("/cart/items"), form: "", cookie: cookie).status == 204)
            try await stream.waitUntilText("the retried add") { DatabaseFaultTests.badgeCounts(in: $0).contains("1") }
            #expect(!DatabaseFaultTests.badgeCounts(in: stream.text).contains("2"))
            #expect(!stream.text.contains("Dusk Long V"))
            stream.cancel()
            let stored = try shop.rows("SELECT snapshot FROM sessions")
            #expect(stored.count == 1)
            #expect(stored.first?.first?.contains("dusk") == false, "\(stored)")
        }
    }

    @Test func afterARestartTheFloorIsLedAgainAndSIGTERMStopsTheProcessWithinTheBound() async throws {
        let postgres = try await ThrowawayPostgres.start()
        do {
            try await withWorkbench { bench in
                let server = try await bench.startServer(arguments: ["--database", postgres.url])
                try await waitUntil("the instance leads the floor", limit: .seconds(20)) {
                    server.output.contains(Self.leads)
                }
                try await postgres.restart(downFor: 6)
                // Before the fix its check of the lock waited for good on the connection the restart
                // ended: the floor was never led again, and the signal below was never obeyed.
                try await waitUntil("the instance leads the floor again", limit: .seconds(20)) {
                    server.output.components(separatedBy: Self.leads).count - 1 >= 2
                }
                let signalled = ContinuousClock.now
                server.send(SIGTERM)
                let exit = try await server.waitForExit(within: GracefulShutdownTests.exitBound)
                let exitedAfter = signalled.duration(to: .now)
                #expect(exit.code == 0 && !exit.bySignal, "\(exit)\n\(bench.outputs)")
                print(
                    "[reliability] PostgreSQL restarted under an instance (6 s down): the floor led again, then "
                        + "SIGTERM: \(exit) after \(exitedAfter.milliseconds) ms")
            }
        } catch {
            await postgres.stop()
            throw error
        }
        await postgres.stop()
    }
}

/// A PostgreSQL server of one test's own, on loopback (`Scripts/postgres-for-tests`).
struct ThrowawayPostgres {
    let url: String
    let directory: String

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/postgres-for-tests").path

    static func start() async throws -> ThrowawayPostgres {
        let output = try await run(["start"])
        func exported(_ name: String) -> String? {
            output.split(separator: "\n").first { $0.hasPrefix("export \(name)=") }.map {
                String($0.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            }
        }
        guard let url = exported("LUTHIER_TEST_POSTGRES_URL"), let directory = exported("LUTHIER_TEST_POSTGRES_DIR")
        else { throw TestFailure("postgres-for-tests start printed no URL: \(output)") }
        return ThrowawayPostgres(url: url, directory: directory)
    }

    /// Stops the server (every connection ends), waits `seconds`, and starts it again on the same port.
    func restart(downFor seconds: Int) async throws {
        _ = try await Self.run(["restart", directory, String(seconds)])
    }

    func stop() async {
        _ = try? await Self.run(["stop", directory])
    }

    /// Runs the script with `arguments`; its output, once it has ended with status 0.
    ///
    /// The output goes to a file, not a pipe: the server the script starts inherits the script's
    /// descriptors, so a pipe's end would never come.
    private static func run(_ arguments: [String]) async throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("postgres-\(UUID().uuidString).out")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw TestFailure("cannot write \(file.path)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let output = try FileHandle(forWritingTo: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardOutput = output
        // Its errors too, so that a failure says why (the server's log, initdb's).
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? output.close()
        // Reaped here, as `LuthierProcess.stop` does: Foundation may leave the ended script a
        // zombie and report it running for good.
        let pid = process.processIdentifier
        let status = Locked<Int32?>(nil)
        try await waitUntil("postgres-for-tests \(arguments.joined(separator: " ")) ends", limit: .seconds(120)) {
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid { status.withLock { $0 = (raw >> 8) & 0xff } }
            // Foundation reaped it first: it knows the status then.
            if reaped == -1, !process.isRunning { status.withLock { $0 = process.terminationStatus } }
            return status.value != nil
        }
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard status.value == 0 else {
            throw TestFailure("postgres-for-tests \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}
