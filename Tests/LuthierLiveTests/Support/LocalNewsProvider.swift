import Foundation
import Hummingbird
import Logging
import Synchronization
import TestSupport

/// A real Hacker-News-compatible API on 127.0.0.1 (`/v0/newstories.json`, `/v0/item/{id}.json`)
/// whose answers each test sets: a body, a status, or a body held until the test releases it (so
/// a test decides the order stories arrive in without sleeping), or never. Every request is told
/// on `requests` as it arrives.
final class LocalNewsProvider: Sendable {
    enum Behaviour: Sendable {
        case answer(String)
        case status(HTTPResponse.Status)
        /// Held until `release(_:)` names this path, then answered with the body.
        case hold(String)
        /// Never answered (until the provider stops).
        case never
    }

    private struct State {
        var answers: [String: Behaviour] = [:]
        var held: [String: CheckedContinuation<Void, Never>] = [:]
        var released: Set<String> = []
        var stopped = false
    }

    private let state = Mutex(State())
    let requests: AsyncStream<String>
    private let requestInput: AsyncStream<String>.Continuation

    init() {
        (requests, requestInput) = AsyncStream.makeStream()
    }

    /// Sets what `path` (`v0/newstories.json`, `v0/item/3.json`) answers.
    func set(_ path: String, _ behaviour: Behaviour) {
        state.withLock { $0.answers[path] = behaviour }
    }

    /// Lets the held request for `path` answer (now, or as soon as it arrives).
    func release(_ path: String) {
        let held = state.withLock { state in
            state.released.insert(path)
            return state.held.removeValue(forKey: path)
        }
        held?.resume()
    }

    /// Runs `body` with the provider listening; `body` gets the API's base URL.
    func run(_ body: @Sendable (URL) async throws -> Void) async throws {
        let router = Router()
        router.get("v0/newstories.json") { _, _ in await self.respond("v0/newstories.json") }
        router.get("v0/item/{item}") { _, context in
            await self.respond("v0/item/\(context.parameters.get("item") ?? "")")
        }
        try await withLoopbackServer(router, label: "LocalNewsProvider", settle: stop) { port in
            guard let url = URL(string: "http://127.0.0.1:\(port)") else { throw ProviderDidNotStart() }
            try await body(url)
        }
    }

    /// Answers every held request, so that the server can stop.
    private func stop() {
        let held = state.withLock { state in
            state.stopped = true
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    private func respond(_ path: String) async -> Response {
        requestInput.yield(path)
        let behaviour = state.withLock { $0.answers[path] } ?? .status(.notFound)
        switch behaviour {
        case .answer(let body):
            return Self.json(body)
        case .status(let status):
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: "null")))
        case .hold(let body):
            await wait(for: path)
            return Self.json(body)
        case .never:
            await wait(for: "never: " + path)
            return Response(status: .serviceUnavailable)
        }
    }

    private func wait(for key: String) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if state.stopped || state.released.contains(key) { return true }
                state.held[key] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func json(_ body: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private struct ProviderDidNotStart: Error {}
}
