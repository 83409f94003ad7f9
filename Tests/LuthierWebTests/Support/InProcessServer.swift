import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import TestSupport

@testable import LuthierWeb

/// The running application's router, called directly: the same middleware, controllers and
/// services (sessions, hub, showroom, renderer) as the server's, without sockets or the HTTP
/// parser. For application-level requests, many times cheaper than a round trip through the
/// server, so that a fuzz run can afford its bulk; what only a socket can carry (framing, odd
/// heads, pipelining, event streams) goes over real HTTP.
struct InProcessServer: Sendable {
    let responder: RouterResponder<LuthierRequestContext>
    let authority: String
    /// The context's channel; no route run in process uses it (event streams go over sockets).
    let channel: NIOAsyncTestingChannel
    let logger: Logger

    init(app: TestApp) {
        responder = buildRouter(configuration: app.configuration, services: app.services).buildResponder()
        authority = "127.0.0.1:\(app.port)"
        channel = NIOAsyncTestingChannel()
        var logger = Logger(label: "luthier-fuzz-in-process")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Answers `request` as the server would: an error the router throws becomes its response, as
    /// Hummingbird's server makes it; anything else thrown would be a 500.
    func respond(to fuzzed: FuzzRequest) async -> Result<RawHTTPResponse, RawHTTPFailure> {
        guard let method = HTTPRequest.Method(fuzzed.method) else {
            return .failure(.notSent("\(fuzzed.method.debugDescription) is not a method token"))
        }
        var fields = HTTPFields()
        for (name, value) in fuzzed.headers {
            guard let fieldName = HTTPField.Name(name) else {
                return .failure(.notSent("\(name.debugDescription) is not a header name"))
            }
            fields.append(HTTPField(name: fieldName, lenientValue: value))
        }
        let head = HTTPRequest(
            method: method, scheme: "http", authority: authority, path: String(decoding: fuzzed.target, as: UTF8.self),
            headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: fuzzed.body)))
        let context = LuthierRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        var response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            do {
                response = try error.response(from: request, context: context)
            } catch {
                response = Response(status: .internalServerError)
            }
        } catch {
            response = Response(status: .internalServerError)
        }
        let collector = BodyCollector()
        do {
            _ = try await response.body.write(collector)
        } catch {
            return .failure(.malformedResponse("the body could not be written: \(error)"))
        }
        return .success(
            RawHTTPResponse(
                status: Int(response.status.code),
                reason: response.status.reasonPhrase,
                headers: response.headers.map { ($0.name.canonicalName, $0.value) },
                body: collector.body))
    }

    /// Collects a response body written in process.
    private final class BodyCollector: ResponseBodyWriter, Sendable {
        private let collected = Mutex(ByteBuffer())

        var body: ByteBuffer { collected.withLock { $0 } }

        func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collected.withLock { _ = $0.writeBuffer(&buffer) }
        }

        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
