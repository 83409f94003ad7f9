import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

/// `GET /inspect/trace` over real HTTP, on the real workshop: a session recorded while its
/// inspector is open, through the builder, the cart, a code, a currency and an order, downloads a
/// trace that names no session and holds no key, and that the reducers replay identically; a
/// changed reducer is caught on the same trace.
extension InspectControllerTests {
    @Test("a trace recorded over HTTP replays identically, holds no secret, and catches a changed reducer")
    func traceReplays() async throws {
        try await TestShop.run(configure: { $0.discountCodes = [DiscountCode(code: "BAND10", percent: 10)] }) {
            app, _ in
            let cookie = try await app.newSession()
            // The inspector's page starts the recording (for a minute, as a refreshing page renews it).
            #expect(try await app.get("/inspect", cookie: cookie).status == 200)
            #expect(try await app.scriptPost(form: "shape=longV&color=sky", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/items", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/discount", form: "code=band10", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/discount", form: "code=staff50", cookie: cookie).status == 422)
            #expect(try await app.scriptPost("/cart/checkout", form: "", cookie: cookie).status == 204)
            try await CheckoutControllerTests.show(.eur, app, cookie: cookie)
            let (number, link) = try await CheckoutControllerTests.order(app, cookie: cookie)
            let accessKey = try #require(link.firstMatch(of: CheckoutControllerTests.accessKeyPattern)).output
            let orderKey = try #require(app.liveSession(cookie)).shop.orderKey

            let response = try await app.get("/inspect/trace", cookie: cookie)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.header("Content-Disposition") == "attachment; filename=\"luthier-trace.json\"")
            for secret in [cookie, String(accessKey), orderKey] {
                #expect(!response.text.contains(secret), "the trace holds a secret")
            }
            #expect(response.text.contains(number), "the order's number is no secret, and is in the trace")

            let trace = try SessionTrace(json: Data(response.text.utf8))
            let stores = Set(trace.steps.map(\.store))
            #expect(stores == ["build", "cart", "checkout"])
            #expect(trace.steps.contains { $0.origin == .effect && "\($0.action)".hasPrefix("orderPlaced") })
            #expect(trace.steps.contains { $0.refusal != nil })
            let verdict = try SessionReplay.live.replay(trace)
            guard case .identical(let steps, _, let gaps) = verdict else {
                Issue.record("the recorded session did not replay: \(verdict.summary)")
                return
            }
            #expect(steps == trace.steps.count && gaps == 0)

            // The bug: a placed order is not kept (the page would not show its number).
            var changed = SessionReplay.live
            changed.stores[CheckoutFeature.traceName] = .reducer { context in
                ForgetfulCheckout(
                    live: CheckoutFeature(environment: context.environment, sessionKey: Order.redactedKey))
            }
            guard case .differs(let difference) = try changed.replay(trace) else {
                Issue.record("the changed checkout was not caught")
                return
            }
            #expect(difference.store.hasPrefix("checkout#"))
            #expect(difference.action.hasPrefix("orderPlaced"))
            #expect(difference.path.hasPrefix(".order"))
        }
    }

    @Test("without a session there is no trace, and the answer says what to do")
    func noSessionNoTrace() async throws {
        try await TestApp.run { app in
            let response = try await app.get("/inspect/trace")
            #expect(response.status == 404)
            #expect(response.text.contains("open / first"))
        }
    }
}

/// The checkout with a bug: a placed order is dropped.
private struct ForgetfulCheckout: Reducer {
    let live: CheckoutFeature

    func reduce(into state: inout CheckoutState, action: CheckoutFeature.Action) -> Effect<CheckoutFeature.Action> {
        let effect = live.reduce(into: &state, action: action)
        if case .orderPlaced = action { state.order = nil }
        return effect
    }
}
