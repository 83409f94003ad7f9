import Hummingbird
import Logging

/// Runs `router` on 127.0.0.1, on a port the system picks, for as long as `body` runs; `body`
/// gets the port. `settle` runs when `body` has ended, thrown or not, before the server stops: a
/// test provider that holds requests lets them answer there, so that the server can stop.
///
/// The live tests' local providers (`LocalRatesProvider`, `LocalNewsProvider`) and the process
/// tests' rates provider serve through it.
package func withLoopbackServer<T>(
    _ router: Router<BasicRequestContext>, label: String, settle: @escaping () -> Void = {},
    _ body: (Int) async throws -> T
) async throws -> T {
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            if let port = channel.localAddress?.port { portContinuation.yield(port) }
            portContinuation.finish()
        },
        logger: Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
    )
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await app.runService(gracefulShutdownSignals: []) }
        defer {
            settle()
            group.cancelAll()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw LoopbackServerDidNotStart(label: label) }
        return try await body(port)
    }
}

/// The server never told its port (it could not listen).
package struct LoopbackServerDidNotStart: Error {
    package let label: String

    package init(label: String) {
        self.label = label
    }
}
