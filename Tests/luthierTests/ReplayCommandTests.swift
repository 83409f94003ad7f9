import Foundation
import Testing

/// `luthier replay` as an operator runs it: a real server records a session while its inspector
/// is open, `/inspect/trace` downloads it, and the binary replays it: "identical" and exit 0; the
/// same trace with one recorded state changed is a difference, exit 1; a file that is not a trace
/// is refused with a sentence.
@Suite("luthier replay", .serialized)
struct ReplayCommandTests {
    /// Runs `luthier replay <path>` and returns its exit status and output.
    static func replay(_ path: URL, _ options: [String] = []) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try Locations.luthierBinary()
        process.arguments = ["replay", path.path] + options
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test("a trace downloaded from a running server replays identically; a changed state is caught")
    func replaysWhatTheServerRecorded() async throws {
        try await withWorkbench { bench in
            let server = try await bench.startServer()
            let client = ShopClient()
            defer { Task { await client.shutdown() } }
            let cookie = try await client.newSession(on: server.baseURL)
            #expect(try await client.post(server.url("/build"), form: "color=dusk", cookie: cookie).status == 204)
            #expect(try await client.get(server.url("/inspect"), cookie: cookie).status == 200)
            #expect(
                try await client.post(server.url("/build"), form: "shape=longV&color=sky", cookie: cookie).status == 204
            )
            #expect(try await client.post(server.url("/cart/items"), cookie: cookie).status == 204)
            #expect(try await client.post(server.url("/cart/checkout"), cookie: cookie).status == 204)
            let trace = try await client.get(server.url("/inspect/trace"), cookie: cookie)
            #expect(trace.status == 200)
            #expect(!trace.text.contains(cookie))

            let file = bench.directory.appendingPathComponent("trace.json")
            try Data(trace.text.utf8).write(to: file)
            // The session's flight recorder kept the change made before the inspector opened: the
            // trace starts there.
            let identical = try Self.replay(file)
            #expect(identical.status == 0, "\(identical.output)")
            #expect(identical.output.hasPrefix("identical: 5 steps over build#1, cart#2"), "\(identical.output)")

            // The same trace as a test: each store's steps fed through TestStore, the trace inside.
            let emitted = try Self.replay(file, ["--emit-test"])
            #expect(emitted.status == 0, "\(emitted.output)")
            #expect(
                emitted.output.hasPrefix(
                    "// Emitted by `luthier replay \(file.path) --emit-test` from a trace of 5 steps."))
            #expect(emitted.output.contains("struct ReplayedTrace {"), "\(emitted.output)")
            #expect(emitted.output.contains("try store.input(2)  // "), "\(emitted.output)")
            #expect(emitted.output.contains("    static let trace = #\"{\"discounts\":"), "\(emitted.output)")

            // The recording says the second change led to a dusk guitar; the reducers say sky.
            var json = try #require(try JSONSerialization.jsonObject(with: Data(trace.text.utf8)) as? [String: Any])
            var steps = try #require(json["steps"] as? [[String: Any]])
            var after = try #require(steps[1]["after"] as? [String: Any])
            var guitar = try #require(after["guitar"] as? [String: Any])
            #expect(guitar["color"] as? String == "sky")
            guitar["color"] = "dusk"
            after["guitar"] = guitar
            steps[1]["after"] = after
            json["steps"] = steps
            let changed = bench.directory.appendingPathComponent("changed.json")
            try JSONSerialization.data(withJSONObject: json).write(to: changed)
            let differs = try Self.replay(changed)
            #expect(differs.status == 1, "\(differs.output)")
            #expect(differs.output.contains("differs at step 2 of 5 (build#1, input change(shape: Long V, color: Sky)"))
            #expect(differs.output.contains(#".guitar.color was "dusk" when recorded, "sky" in the replay"#))
        }
    }

    @Test("a file that is not a trace is refused with a sentence")
    func notATrace() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-trace-\(UUID()).json")
        try Data("{\"hello\": 1}".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let refused = try Self.replay(file)
        #expect(refused.status == 64, "\(refused.output)")
        #expect(refused.output.contains("is not a Luthier trace"), "\(refused.output)")
    }
}
