import Foundation
import Hummingbird
import TestSupport
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
            return try await body("http://127.0.0.1:\(try freeLoopbackPort())/rates")
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
        return try await withLoopbackServer(router, label: "rates-provider") { port in
            try await body("http://127.0.0.1:\(port)/rates")
        }
    }
}
