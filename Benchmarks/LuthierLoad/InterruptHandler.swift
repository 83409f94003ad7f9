import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops the servers the tool started when the tool itself is interrupted (Ctrl-C, SIGTERM).
///
/// A normal or failed run stops its servers in `LoadRun`; this covers the case where the user
/// gives up on a run, so no luthier or nginx is left holding a port and a temp database.
enum InterruptHandler {
    private static let children = Mutex<Set<Int32>>([])

    static func register(_ pid: Int32) { children.withLock { _ = $0.insert(pid) } }
    static func unregister(_ pid: Int32) { children.withLock { _ = $0.remove(pid) } }

    /// Installs the handlers once, at start-up, before any child exists. The caller keeps the
    /// returned sources for as long as the handlers should stay installed.
    static func install() -> [any DispatchSourceSignal] {
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                let pids = children.withLock { $0 }
                for pid in pids { kill(pid, SIGTERM) }
                for _ in 0..<250 where pids.contains(where: { kill($0, 0) == 0 }) { usleep(20_000) }
                for pid in pids { kill(pid, SIGKILL) }
                print("\nluthier-load: interrupted; stopped \(pids.count) server(s).")
                exit(130)
            }
            source.resume()
            sources.append(source)
        }
        return sources
    }
}
