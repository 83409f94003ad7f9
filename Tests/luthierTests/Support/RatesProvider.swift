import Foundation
import Hummingbird
import Logging
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exchange-rate provider on 127.0.0.1 for `--rates-url`: a real HTTP server (Hummingbird) that
/// answers as the test says, or a port that refuses connections, or one that takes them and never
/// answers.
enum RatesProvider: Sendable, CustomTestStringConvertible {
    /// 200 with this body.
    case answer(String)
    /// This status, with a short body.
    case status(Int)
    /// Accepts the request and never answers (until the test ends).
    case hang
    /// Nothing listens: every connection is refused.
    case refuse

    static let goodRates = #"{"base":"USD","rates":{"EUR":0.83,"GBP":0.71,"ILS":3.25}}"#

    var testDescription: String {
        switch self {
        case .answer(let body): body == Self.goodRates ? "good rates" : "garbage \(body.prefix(20))"
        case .status(let code): "HTTP \(code)"
        case .hang: "an answer that never comes"
        case .refuse: "a refused connection"
        }
    }

    /// Runs `body` with the provider's rates URL; everything it started is stopped afterwards.
    func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        if case .refuse = self {
            return try await body("http://127.0.0.1:\(try Self.closedPort())/rates")
        }
        let behaviour = self
        let router = Router()
        router.get("rates") { _, _ -> Response in
            switch behaviour {
            case .answer(let text):
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: text)))
            case .status(let code):
                return Response(
                    status: .init(code: code), body: .init(byteBuffer: ByteBuffer(string: "upstream trouble")))
            case .hang, .refuse:
                // Cancelled when the test ends and the provider is torn down.
                try await Task.sleep(for: .seconds(600))
                return Response(status: .ok)
            }
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { portContinuation.yield(port) }
                portContinuation.finish()
            },
            logger: Logger(label: "rates-provider", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw TestFailure("the rates provider did not start") }
            return try await body("http://127.0.0.1:\(port)/rates")
        }
    }

    /// A loopback port nobody listens on: bound by the system, then closed.
    static func closedPort() throws -> Int {
        #if os(Linux)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind() failed: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
