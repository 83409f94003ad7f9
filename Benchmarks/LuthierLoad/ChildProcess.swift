import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A server the tool started (luthier or nginx), with its output in a log file.
///
/// The tool owns its servers' whole lives: it notes the instant just before the spawn (for the
/// start-up time), and always stops them, SIGTERM first and SIGKILL after a bound, so a failed
/// run leaves no process behind.
final class ChildProcess {
    let name: String
    let process = Process()
    let logURL: URL
    private(set) var startedAt = ContinuousClock.now

    init(name: String, executable: String, arguments: [String], logURL: URL) {
        self.name = name
        self.logURL = logURL
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    func start() throws {
        guard FileManager.default.createFile(atPath: logURL.path, contents: nil) else {
            throw LoadError.failure("cannot create the log file \(logURL.path)")
        }
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        startedAt = ContinuousClock.now
        try process.run()
        InterruptHandler.register(process.processIdentifier)
    }

    /// SIGTERM, then SIGKILL if it has not exited within `bound` seconds.
    func stop(bound: Double = 5) async {
        defer { InterruptHandler.unregister(pid) }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .milliseconds(Int(bound * 1000))
        while process.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Whether the server comes to answer `GET path` with `200` within `seconds`; false as soon as
    /// it exits.
    func answers(_ client: LoadHTTPClient, _ path: String, within seconds: Int = 10) async throws -> Bool {
        let limit = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < limit {
            if let response = try? await client.send(.GET, path, timeout: 2), response.status == 200 { return true }
            if !process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The last lines of the log, to explain a failed start.
    func logTail(lines: Int = 15) -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Resident set size in KiB, from `/proc/<pid>/status` (`VmRSS`).
    func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// CPU seconds (user and system) the process and its direct children have used so far, from
    /// `/proc/<pid>/stat`; nginx's worker is a child of its master. A time-per-request read off
    /// this is steadier on a shared machine than a rate, which also counts the seconds the
    /// process waited for a core.
    func cpuSeconds() -> Double? {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0, let own = Self.cpuTicks(pid) else { return nil }
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let theirs = children.split(separator: " ").compactMap { Int32($0) }.compactMap(Self.cpuTicks)
        return Double(own + theirs.reduce(0, +)) / ticks
    }

    /// `utime + stime` of one process, in clock ticks. The fields after the command's closing
    /// parenthesis are counted from there, since the command itself may hold spaces.
    private static func cpuTicks(_ pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": state is field 3 of stat(5); utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }
}
