import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `luthier` server started by a test: the real binary, on a free loopback port, with its output
/// in a log file of the test's temporary directory.
///
/// The test owns its whole life: `stop()` (called by `Workbench` whatever happens) kills it with
/// `SIGKILL` if it still runs, so a failed test leaves no server behind.
final class LuthierProcess {
    let pid: pid_t
    /// The port the server said it listens on.
    let port: Int
    let log: URL
    private let process: Process
    /// Whether `stop()` has run: it reaps the child itself, after which Foundation may go on
    /// counting it as running.
    private var stopped = false

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func url(_ path: String) -> String { baseURL + path }

    /// Starts the server on `database` and waits until it says where it serves.
    ///
    /// - Parameters:
    ///   - arguments: more flags (`--simulate-latency`, `--rates-url …`).
    ///   - ignoringFileSizeSignal: runs it with `SIGXFSZ` ignored (through `sh`, which keeps the
    ///     disposition across `exec`), so that a file-size limit makes its writes fail with `EFBIG`
    ///     like a full disk does, instead of killing it.
    static func start(
        database: URL,
        log: URL,
        arguments: [String] = [],
        ignoringFileSizeSignal: Bool = false,
        startupLimit: Duration = .seconds(30)
    ) async throws -> LuthierProcess {
        let binary = try Locations.luthierBinary()
        let serverArguments =
            [
                "--host", "127.0.0.1", "--port", "0", "--database", database.path,
                "--public", Locations.repository.appendingPathComponent("Public").path,
                "--templates", Locations.repository.appendingPathComponent("Templates").path,
                // Every customer here orders from 127.0.0.1; the order limits have tests of their own.
                "--orders-per-hour-per-session", "1000", "--orders-per-hour-per-client", "100000",
                "--scarce-wood-stock", "0",
            ] + arguments
        let process = Process()
        if ignoringFileSizeSignal {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"trap "" XFSZ; exec "$0" "$@""#, binary.path] + serverArguments
        } else {
            process.executableURL = binary
            process.arguments = serverArguments
        }
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw TestFailure("cannot create the log file \(log.path)")
        }
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = "info"
        process.environment = environment
        try process.run()

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: startupLimit)
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let port = Self.port(in: text) {
                return LuthierProcess(process: process, port: port, log: log)
            }
            guard process.isRunning else {
                throw TestFailure("luthier exited before serving (status \(process.terminationStatus)):\n\(text)")
            }
            guard clock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TestFailure("luthier did not start serving within \(startupLimit):\n\(text)")
            }
            try await clock.sleep(for: .milliseconds(10))
        }
    }

    /// A started `process` as a server serving on `port` (tests of this type adopt other children).
    init(process: Process, port: Int, log: URL) {
        self.process = process
        self.pid = process.processIdentifier
        self.port = port
        self.log = log
    }

    /// The port in "Luthier is serving on http://127.0.0.1:PORT".
    static func port(in output: String) -> Int? {
        let marker = "Luthier is serving on http://127.0.0.1:"
        guard let range = output.range(of: marker) else { return nil }
        let digits = output[range.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    var isRunning: Bool { process.isRunning }

    func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// How the process ended.
    struct Exit: Equatable, CustomStringConvertible {
        /// The exit status, or the signal that ended it.
        var code: Int32
        var bySignal: Bool

        var description: String { bySignal ? "killed by signal \(code)" : "exited with status \(code)" }
    }

    /// Waits (polling) until the process has ended; throws after `limit`, leaving it running.
    func waitForExit(within limit: Duration) async throws -> Exit {
        try await waitUntil("luthier (pid \(pid)) exits", limit: limit, pollEvery: .milliseconds(2)) {
            !self.process.isRunning
        }
        return Exit(
            code: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal)
    }

    /// Kills the process if it still runs and reaps it. Safe to call more than once.
    ///
    /// It reaps the child itself (`waitpid`) instead of waiting for Foundation to notice the end:
    /// once, Foundation missed a crashed server's exit and `Process.waitUntilExit` spun on the
    /// zombie for good, which held a CI run for twenty minutes. After `SIGKILL` the kernel ends the
    /// child at once; whichever of Foundation and this reaps it first, the other is told there is
    /// no such child. Only a child Foundation still counts as running is killed: a pid it has
    /// reaped may already be another process's.
    func stop() {
        guard !stopped else { return }
        stopped = true
        guard process.isRunning else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// The server's output so far, to explain a failure.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
}

/// A test's temporary directory, its database file, and every server started in it: all stopped
/// and removed when the test ends, passed or failed.
final class Workbench {
    let directory: URL
    private var servers: [LuthierProcess] = []

    var database: URL { directory.appendingPathComponent("luthier.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("luthier-process-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Starts a server on this bench's database (see `LuthierProcess.start`).
    func startServer(arguments: [String] = [], ignoringFileSizeSignal: Bool = false) async throws -> LuthierProcess {
        let log = directory.appendingPathComponent("luthier-\(servers.count + 1).log")
        let server = try await LuthierProcess.start(
            database: database, log: log, arguments: arguments, ignoringFileSizeSignal: ignoringFileSizeSignal)
        servers.append(server)
        return server
    }

    /// Every server's output, for a failure's message.
    var outputs: String {
        servers.map { "--- \($0.log.lastPathComponent)\n\($0.output.suffix(4_000))" }.joined(separator: "\n")
    }

    func cleanUp() {
        for server in servers { server.stop() }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a fresh workbench, which is cleaned up afterwards however `body` ends.
func withWorkbench<T>(_ body: (Workbench) async throws -> T) async throws -> T {
    let bench = try Workbench()
    do {
        let result = try await body(bench)
        bench.cleanUp()
        return result
    } catch {
        bench.cleanUp()
        throw error
    }
}

/// Where the repository and the binary under test are.
enum Locations {
    /// The repository root: this file is `Tests/luthierTests/Support/LuthierProcess.swift`.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `luthier` executable `swift build` put beside this test binary (`.build/debug/luthier`),
    /// or the one `LUTHIER_BINARY` names.
    static func luthierBinary() throws -> URL {
        var candidates: [URL] = []
        if let named = ProcessInfo.processInfo.environment["LUTHIER_BINARY"], !named.isEmpty {
            candidates.append(URL(fileURLWithPath: named))
        }
        #if os(Linux)
            if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                candidates.append(
                    URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("luthier"))
            }
        #endif
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("luthier"))
        }
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        throw TestFailure(
            "No luthier binary next to the tests (looked at \(candidates.map(\.path).joined(separator: ", "))). "
                + "Run `swift build` before `swift test` (Scripts/test does), or set LUTHIER_BINARY.")
    }
}

/// A failure with a readable message.
struct TestFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Waits, in real time, until `condition` holds (for what another process does); fails after `limit`.
func waitUntil(
    _ what: String,
    limit: Duration,
    pollEvery interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while try await !condition() {
        guard clock.now < deadline else { throw TestFailure("gave up after \(limit) waiting until \(what)") }
        try await clock.sleep(for: interval)
    }
}

/// A value several tasks share, behind a lock (a class, so that escaping closures can hold it).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { try body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
