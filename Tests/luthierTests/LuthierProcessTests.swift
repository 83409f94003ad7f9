import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process tests' own harness: stopping a server kills and reaps it, and returns.
///
/// What made `stop()` reap the child itself (Foundation once missed a crashed server's exit and
/// `waitUntilExit` spun on the zombie) is not reproduced here: a child reaped behind Foundation's
/// back does not do it, as Foundation takes the "no such child" answer for an exit.
@Suite("Process: the test harness's LuthierProcess")
struct LuthierProcessTests {
    /// A child that would run for a minute, adopted as a server would be.
    static func sleepingChild() throws -> LuthierProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return LuthierProcess(process: process, port: 0, log: URL(fileURLWithPath: "/dev/null"))
    }

    /// Runs `stop()` on a thread of its own and answers false when it has not returned within
    /// `limit` (the old `stop()` spun for good when Foundation had missed the exit). Whichever of
    /// the thread and the timer comes first answers; a task group could not, since it waits for
    /// every child, and a child waiting on a thread that never ends is not ended by cancelling it.
    static func stopReturns(_ child: LuthierProcess, within limit: Duration) async -> Bool {
        // Handed to the one thread that calls `stop()`: nothing else touches the child until that
        // call has returned (the caller awaits it, or has given up and never calls it again).
        nonisolated(unsafe) let child = child
        let waiting = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        let timer = Mutex<Task<Void, Never>?>(nil)
        let answer: @Sendable (Bool) -> Void = { returned in
            waiting.withLock { $0.take() }?.resume(returning: returned)
        }
        defer { timer.withLock { $0?.cancel() } }
        return await withCheckedContinuation { continuation in
            // Kept before either side starts, so that neither can answer into nothing.
            waiting.withLock { $0 = continuation }
            Thread {
                child.stop()
                answer(true)
            }.start()
            timer.withLock {
                $0 = Task {
                    try? await Task.sleep(for: limit)
                    answer(false)
                }
            }
        }
    }

    @Test("stop kills a running child and reaps it")
    func stopKillsAndReaps() async throws {
        let child = try Self.sleepingChild()
        let pid = child.pid
        #expect(await Self.stopReturns(child, within: .seconds(20)))
        // Reaped: not even a zombie is left under this pid.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
        // A second stop changes nothing and returns.
        #expect(await Self.stopReturns(child, within: .seconds(20)))
    }
}
