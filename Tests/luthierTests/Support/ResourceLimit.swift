import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if os(Linux)
    /// A resource limit of another process (the server under test), read and set through
    /// `prlimit(2)`, looked up at run time: Swift's Glibc module leaves out the GNU extensions.
    struct ResourceLimit {
        let pid: pid_t
        let resource: Int32

        private typealias Prlimit =
            @convention(c) (pid_t, Int32, UnsafePointer<rlimit>?, UnsafeMutablePointer<rlimit>?) -> Int32

        private static func prlimit() throws -> Prlimit {
            guard let symbol = dlsym(nil, "prlimit") else { throw TestFailure("no prlimit in the C library") }
            return unsafeBitCast(symbol, to: Prlimit.self)
        }

        /// The soft and hard limits in force.
        func get() throws -> rlimit {
            var limit = rlimit()
            guard try Self.prlimit()(pid, resource, nil, &limit) == 0 else {
                throw TestFailure("prlimit(\(resource)) of \(pid) could not be read: errno \(errno)")
            }
            return limit
        }

        func set(_ limit: rlimit) throws {
            var limit = limit
            guard try Self.prlimit()(pid, resource, &limit, nil) == 0 else {
                throw TestFailure("prlimit(\(resource)) of \(pid) could not be set: errno \(errno)")
            }
        }
    }

    /// What a process has used of the processor so far (user and system time), from `/proc`.
    func processorTime(of pid: pid_t) throws -> Duration {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command name, which is in parentheses and may hold spaces:
        // state is field 3, utime field 14 and stime field 15.
        guard let close = stat.lastIndex(of: ")") else { throw TestFailure("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestFailure("unreadable /proc/\(pid)/stat")
        }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return .milliseconds((user + system) * 1_000 / ticks)
    }

    /// How many descriptors a process has open, from `/proc`.
    func openDescriptors(of pid: pid_t) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }
#endif
