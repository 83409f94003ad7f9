import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if os(Linux)
    /// The server at its open-file limit: `accept` fails with `EMFILE` while visitors wait in the
    /// listen queue. It must pause accepting instead of spinning on the readable listening socket,
    /// and serve again as soon as descriptors free.
    @Suite("Process: the open-file limit")
    struct DescriptorLimitTests {
        @Test func atTheDescriptorLimitTheServerPausesInsteadOfSpinningAndRecovers() async throws {
            try await withShop { bench, client in
                let server = try await bench.startServer()
                do {
                    try await Self.pauseAndRecover(server, client)
                } catch {
                    // The server's own words and whether it still runs: its log goes with the bench.
                    throw TestFailure(
                        "\(error)\nthe server \(server.isRunning ? "still runs" : "has exited")\n\(bench.outputs)")
                }
            }
        }

        static func pauseAndRecover(_ server: LuthierProcess, _ client: ShopClient) async throws {
            let descriptors = ResourceLimit(pid: server.pid, resource: Int32(RLIMIT_NOFILE.rawValue))
            let original = try descriptors.get()
            // Room for a handful more connections than the server holds now, then a queue of
            // visitors it cannot take (the listen backlog is 256, so every connect completes).
            let open = try openDescriptors(of: server.pid)
            try descriptors.set(rlimit(rlim_cur: rlim_t(open + 8), rlim_max: original.rlim_max))
            var visitors: [RawConnection] = []
            for _ in 0..<40 { visitors.append(try RawConnection(port: server.port)) }

            try await waitUntil("the server says it stopped accepting", limit: .seconds(20)) {
                server.output.contains("Stopped accepting connections")
            }
            // The one measurement that needs real time: what the process burns while it cannot
            // accept. Spinning on the listening socket costs a whole core (about 1 s in 1 s);
            // pausing costs a few accept attempts.
            let before = try processorTime(of: server.pid)
            try await ContinuousClock().sleep(for: .seconds(1))
            let burnt = try processorTime(of: server.pid) - before
            #expect(burnt < .milliseconds(300), "the server used \(burnt) of processor time in 1 s at the limit")

            visitors.removeAll()
            try descriptors.set(original)
            let answer = try await client.get(server.url("/healthz"))
            #expect(answer.status == 200, "\(answer)")
            try await waitUntil("the server says it accepts again", limit: .seconds(20)) {
                server.output.contains("Accepting connections again")
            }
            print("[reliability] at the open-file limit with 40 visitors queued: \(burnt) of processor time in 1 s")
        }
    }
#endif
