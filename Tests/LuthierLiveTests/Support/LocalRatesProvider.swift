import Foundation
import Hummingbird
import Logging
import Synchronization
import TestSupport

/// A real HTTP rates provider on 127.0.0.1, on a port the system picks, whose answer each test sets,
/// and which counts the requests it gets.
final class LocalRatesProvider: Sendable {
    /// What the provider does with the next request.
    enum Behaviour: Sendable {
        /// 200 with this body.
        case answer(String)
        /// This status, with a short body.
        case status(HTTPResponse.Status)
        /// Holds the request until `releaseHeldRequests()`, then answers with this body.
        case hold(thenAnswer: String)
        /// Sends the head and part of the body, then closes the connection.
        case closeMidAnswer
        /// 200 with a body of this many bytes of valid JSON padding.
        case largeAnswer(bytes: Int)
    }

    static let goodRates = #"{"base":"USD","rates":{"EUR":0.83,"GBP":0.71,"ILS":3.25}}"#

    private struct State {
        var behaviour: Behaviour
        var requests = 0
        var held: [CheckedContinuation<Void, Never>] = []
        var released = false
    }

    private let state: Mutex<State>

    init(_ behaviour: Behaviour) {
        state = Mutex(State(behaviour: behaviour))
    }

    /// Requests received so far.
    var requests: Int { state.withLock { $0.requests } }

    var behaviour: Behaviour {
        get { state.withLock { $0.behaviour } }
        set { state.withLock { $0.behaviour = newValue } }
    }

    /// Lets every held request (and every later one) answer.
    func releaseHeldRequests() {
        let held = state.withLock { state in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Runs `body` with the provider listening; `body` gets the rates document's URL.
    func run(_ body: @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.get("rates") { _, _ in try await self.respond() }
        try await withLoopbackServer(router, label: "LocalRatesProvider", settle: releaseHeldRequests) { port in
            guard let url = URL(string: "http://127.0.0.1:\(port)/rates") else { throw ProviderDidNotStart() }
            try await body(url)
        }
    }

    private func respond() async throws -> Response {
        let behaviour = state.withLock { state in
            state.requests += 1
            return state.behaviour
        }
        switch behaviour {
        case .answer(let body):
            return Self.json(body)
        case .status(let status):
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: "upstream trouble")))
        case .hold(let body):
            await withCheckedContinuation { continuation in
                let releasedAlready = state.withLock { state in
                    if !state.released { state.held.append(continuation) }
                    return state.released
                }
                if releasedAlready { continuation.resume() }
            }
            return Self.json(body)
        case .closeMidAnswer:
            let body = ResponseBody(contentLength: 1_000) { writer in
                try await writer.write(ByteBuffer(string: #"{"base":"USD","ra"#))
                throw ConnectionClosedOnPurpose()
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        case .largeAnswer(let bytes):
            let padding = String(repeating: " ", count: max(0, bytes - Self.goodRates.utf8.count))
            return Self.json(Self.goodRates + padding)
        }
    }

    private static func json(_ body: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }

    private struct ProviderDidNotStart: Error {}
    private struct ConnectionClosedOnPurpose: Error {}
}
