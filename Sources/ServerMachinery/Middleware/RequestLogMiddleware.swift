import Hummingbird
import Logging

/// One log line per request: method, route pattern, status, time to the answer's head, and a
/// request id that the answer carries too (`X-Request-Id`), so a customer's report can be found.
///
/// The route is logged as its pattern (`/orders/{number}/events`, `NotFound` for none), never the
/// path or the query, and
/// no header is logged: a cookie, a session id, an order key or a token never reaches the log.
package struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    package let logger: Logger
    /// Reads the time; a test gives a fixed or virtual one.
    package let clock: any Clock<Duration>

    package init(logger: Logger, clock: any Clock<Duration>) {
        self.logger = logger
        self.clock = clock
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws
        -> Response
    {
        let id = Self.newRequestID()
        let elapsed = clock.elapsedSinceNow()
        var response = try await next(request, context)
        response.headers[.xRequestID] = id
        let status = response.status.code
        logger.log(
            level: status >= 500 ? .warning : .info,
            "\(request.method.rawValue.prefix(16)) \(context.endpointPath ?? "(no route)") \(status)",
            metadata: [
                "request": "\(id)",
                "ms": "\(Self.milliseconds(elapsed()))",
            ])
        return response
    }

    /// 16 hex digits: unique enough to find one request in a day's log, and no secret.
    package static func newRequestID() -> String {
        var value = UInt64.random(in: .min ... .max)
        // Written into the string's own storage, lowest digit last: one allocation, not three.
        return String(unsafeUninitializedCapacity: 16) { digits in
            for index in (0..<16).reversed() {
                let digit = UInt8(value & 0xf)
                digits[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                value >>= 4
            }
            return 16
        }
    }

    /// Milliseconds with three decimals, as the log shows them.
    package static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return "\(micros / 1_000).\(String(micros % 1_000 + 1_000).dropFirst())"
    }
}
