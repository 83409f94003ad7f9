import ArgumentParser
import Foundation
import NIOPosix

/// `luthier-load`: the project's own load tool.
///
/// It starts a luthier server itself (so start-up, memory and every number come from one known
/// process), drives the shop's real HTTP interface and event streams, and prints one table. Every
/// phase is bounded in count and time. `--smoke` is a small run for CI: it fails only on
/// functional errors, never on slow timings.
@main
struct LuthierLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "luthier-load",
        abstract: "Starts a luthier server and measures streams, change latency, broadcast, pages and start-up."
    )

    @Option(help: "The luthier binary (default: the one next to this tool).")
    var luthier: String?

    @Option(help: "Phases to run, comma-separated: startup,connections,changes,broadcast,orders,pages,static,cart.")
    var phases = "startup,connections,changes,broadcast,orders,pages,static,cart"

    @Option(help: "Sessions with an open /events stream.")
    var connections = 1000

    @Option(help: "Builder changes per second in the change-latency phase.")
    var rate = 100.0

    @Option(help: "Builder changes in all.")
    var changes = 1000

    @Option(help: "Kiosk streams in the broadcast phase.")
    var kiosks = 1000

    @Option(help: "Orders placed in the broadcast phase, each timed to every kiosk.")
    var broadcastOrders = 3

    @Option(help: "Customers who each build, check out and order in the orders phase.")
    var orders = 300

    @Option(help: "Carts of one line and carts of twenty, each with its stream, in the cart phase.")
    var cartSessions = 100

    @Option(help: "Seconds per route in the pages and static phases.")
    var seconds = 5.0

    @Option(help: "Concurrent keep-alive connections in the pages and static phases.")
    var concurrency = 16

    @Option(help: "Upper bound, in seconds, on each phase.")
    var phaseTimeout = 120.0

    @Option(help: "The nginx binary to compare static files with.")
    var nginx = "/usr/sbin/nginx"

    @Flag(help: "A small, fast run: 20 connections, 50 changes, 20 kiosks, 1 s pages, no nginx.")
    var smoke = false

    /// The runs the performance issue names, by name, so that its figures are one command each.
    enum Preset: String, CaseIterable, ExpressibleByArgument {
        /// 10,000 sessions with open streams, 2,000 builder changes at 200 a second.
        case sessions10k = "sessions-10k"
        /// 1,000 sessions with open streams, 4,000 builder changes at 400 a second.
        case changes400 = "changes-400"
    }

    @Option(
        help: """
            A named run: sessions-10k (10,000 sessions, 2,000 changes at 200/s) or changes-400 (1,000 \
            sessions, 4,000 changes at 400/s); sets --connections, --rate, --changes and --phases.
            """)
    var preset: Preset?

    @Flag(help: "Ask for gzip on event streams, as browsers do, and inflate them to find the events.")
    var gzipStreams = false

    @Option(
        help: """
            A shop already running (http://host:port), instead of starting one: one instance of \
            several, say. What needs the server's own process (memory, CPU time, start-up) is left out.
            """)
    var url: String?

    @Option(
        help: """
            Another instance of the same shop (http://host:port) to spread the broadcast's kiosks over, \
            in turn with --url; repeat for more. Orders are placed on --url.
            """)
    var kioskURL: [String] = []

    @Option(
        help: """
            Another instance of the same shop (http://host:port) to open the sessions' streams on, \
            while their pages and posts go to --url: each change reaches its patch through the database.
            """)
    var streamURL: String?

    /// `http://host:port` as a host and a port.
    static func hostAndPort(_ text: String, option: String) throws -> (host: String, port: Int) {
        guard let components = URLComponents(string: text), components.scheme == "http",
            let host = components.host, !host.isEmpty
        else {
            throw ValidationError("\(option) must be http://host:port, not '\(text)'.")
        }
        return (host, components.port ?? 80)
    }

    mutating func run() async throws {
        switch preset {
        case .sessions10k?:
            (connections, rate, changes, phases) = (10_000, 200, 2_000, "connections,changes")
        case .changes400?:
            (connections, rate, changes, phases) = (1_000, 400, 4_000, "connections,changes")
        case nil:
            break
        }
        if smoke {
            connections = 20
            changes = 50
            rate = 50
            kiosks = 20
            orders = 10
            cartSessions = 5
            seconds = 1
            phaseTimeout = 30
        }
        let selected = Set(phases.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        let known: Set = [
            "startup", "connections", "changes", "broadcast", "bare-broadcast", "orders", "pages", "static", "cart",
        ]
        guard selected.isSubset(of: known) else {
            throw ValidationError("Unknown phase in --phases; known: \(known.sorted().joined(separator: ","))")
        }
        guard broadcastOrders >= 1 else {
            throw ValidationError("--broadcast-orders must be at least 1 (the orders timed to every kiosk).")
        }
        guard let root = RepositoryPaths.root() else {
            throw ValidationError("Cannot find the repository (Public/ and Templates/); run from its root.")
        }
        let target = try url.map { try Self.hostAndPort($0, option: "--url") }
        let kioskServers = try kioskURL.map { try Self.hostAndPort($0, option: "--kiosk-url") }
        if !kioskServers.isEmpty && target == nil {
            throw ValidationError("--kiosk-url spreads kiosks over instances of a running shop: give --url too.")
        }
        let streamServer = try streamURL.map { try Self.hostAndPort($0, option: "--stream-url") }
        if streamServer != nil && target == nil {
            throw ValidationError("--stream-url opens streams on another instance of a running shop: give --url too.")
        }
        let binary = luthier ?? RepositoryPaths.defaultLuthierBinary()
        guard target != nil || FileManager.default.isExecutableFile(atPath: binary) else {
            throw ValidationError("No luthier binary at \(binary); build it or pass --luthier.")
        }

        let signalSources = InterruptHandler.install()
        defer { withExtendedLifetime(signalSources) {} }
        let report = Report()
        let limit = FileDescriptorLimit.raiseToHardLimit()
        let needed = UInt64(connections + kiosks + concurrency + 256)
        report.add("setup", "open-file limit", "\(limit) (this run needs about \(needed))")
        if limit < needed {
            print("warning: RLIMIT_NOFILE is \(limit), below the ~\(needed) this run needs; raise the hard limit.")
        }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("luthier-load-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)

        let run = LoadRun(
            group: group, report: report, root: root, temporary: temporary, phaseTimeout: phaseTimeout,
            settings: .init(
                connections: connections, rate: rate, changes: changes, kiosks: kiosks,
                broadcastOrders: broadcastOrders, orders: orders, cartSessions: cartSessions,
                seconds: seconds, concurrency: concurrency, nginx: smoke ? nil : nginx,
                phases: selected, gzipStreams: gzipStreams, kioskServers: kioskServers,
                streamServer: streamServer))
        if let target {
            await run.execute(host: target.host, port: target.port)
        } else {
            await run.execute(luthierBinary: binary)
        }

        print(report.render())
        try? await group.shutdownGracefully()
        try? FileManager.default.removeItem(at: temporary)
        let failures = report.failures
        if !failures.isEmpty {
            print("\n\(failures.count) functional failure(s):")
            for failure in failures { print("  \(failure)") }
            throw ExitCode(1)
        }
    }
}
