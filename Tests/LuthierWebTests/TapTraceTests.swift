import TestSupport
import Testing

@testable import LuthierWeb

/// With `LOG_LEVEL=trace` (the capture logs at trace), every tap is a log line as Combine's
/// `print` writes it, and a whole order's trace holds no cookie, session key or order key.
@Suite("Taps in the trace log")
struct TapTraceTests {
    @Test("a change is traced from the input to the session's output, and an order's trace holds no secret")
    func aChangeIsTracedAndNoSecretIsLogged() async throws {
        let log = LogCapture()
        try await TestShop.run(log: log) { app, _ in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let traced = log.all.filter { $0.hasPrefix("trace ") }
            #expect(traced.contains { $0.contains("build.input: receive value: (change(") }, "\(traced)")
            #expect(traced.contains { $0.contains("build.state: receive value: (") }, "\(traced)")
            #expect(traced.contains { $0.contains("session.output: receive value: (build: Sky") }, "\(traced)")

            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            let session = try #require(app.liveSession(cookie))
            let order = try #require(session.build.currentCheckout?.latestState.order)
            let all = log.all.joined(separator: "\n")
            #expect(all.contains("checkout.effect: receive value: (orderPlaced(Order(\(order.number)"), "\(all)")
            #expect(!all.contains(order.accessKey))
            #expect(!all.contains(session.orderKey))
            #expect(!all.contains(cookie))
            #expect(!all.contains(session.id.cookieValue))
        }
    }
}
