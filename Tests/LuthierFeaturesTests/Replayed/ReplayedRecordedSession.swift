// Emitted by `luthier replay recorded-session.json --emit-test` from a trace of 9 steps.
// Each test feeds one store of the recorded session its inputs and effect answers, in order,
// through TestStore on a clock set to each step's instant, and asserts the state each led to
// (or its refusal) as recorded. The effects the reducer asks for are not performed: what they
// sent back is in the trace, as the answers fed after them.
import Testing

@testable import LuthierFeatures

@Suite("recorded-session.json: the recorded session, replayed")
struct ReplayedRecordedSession {
    @Test("build#1: 3 steps")
    func build1() async throws {
        try await Self.build1(ReplayedReducers.build)
    }

    /// build#1, replayed through the reducer `make` builds.
    static func build1<R: Reducer>(_ make: @escaping @Sendable (ReplayContext) -> R) async throws
    where R.State: Traceable, R.Action: Traceable & Equatable {
        var store = try TraceTestStore(trace: trace, store: "build", instance: 1, reducer: make)
        try store.input(1)  // 0.000 s: change(shape: Long V, color: Sky)
        try store.input(5)  // 0.000 s: checkoutRequested(CheckoutRequest(cart, 1 line, code BAND10))
        try store.answer(6)  // 0.000 s: checkoutFinished(LuthierDomain.Checkout(id: "checkout-1", source: LuthierDom…
        await store.finish()
    }

    @Test("cart#2: 3 steps")
    func cart2() async throws {
        try await Self.cart2(ReplayedReducers.cart)
    }

    /// cart#2, replayed through the reducer `make` builds.
    static func cart2<R: Reducer>(_ make: @escaping @Sendable (ReplayContext) -> R) async throws
    where R.State: Traceable, R.Action: Traceable & Equatable {
        var store = try TraceTestStore(trace: trace, store: "cart", instance: 2, reducer: make)
        try store.input(2)  // 0.000 s: cart(LuthierDomain.CartAction.add(Sky Long V with Mahogany body and Rosewood …
        try store.input(3)  // 0.000 s: applyDiscount(code: "band10")
        try store.input(4)  // 0.000 s: applyDiscount(code: "staff50"), refused
        await store.finish()
    }

    @Test("checkout#3: 3 steps")
    func checkout3() async throws {
        try await Self.checkout3(ReplayedReducers.checkout)
    }

    /// checkout#3, replayed through the reducer `make` builds.
    static func checkout3<R: Reducer>(_ make: @escaping @Sendable (ReplayContext) -> R) async throws
    where R.State: Traceable, R.Action: Traceable & Equatable {
        var store = try TraceTestStore(trace: trace, store: "checkout", instance: 3, reducer: make)
        try store.input(7)  // 0.000 s: currencyChosen(EUR)
        try store.answer(8)  // 0.500 s: currencySettled(EUR)
        try store.answer(9)  // 0.500 s: rateArrived(LuthierDomain.ExchangeRate(currency: EUR, perDollar: 0.83, asOf:…
        await store.finish()
    }

    /// The trace, as `GET /inspect/trace` wrote it (one line, so left as it is by swift-format).
    // swift-format-ignore
    static let trace = #"{"discounts":[{"code":"BAND10","percent":10}],"dropped":0,"format":1,"steps":[{"action":{"change":{"_0":{"color":"sky","shape":"longV"}}},"after":{"checkoutPhase":{"idle":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"soldOut":[]},"at":0,"before":{"checkoutPhase":{"idle":{}},"guitar":{"body":"mahogany","color":"natural","fretboard":"rosewood","shape":"casual"},"soldOut":[]},"cause":1,"date":1800000000000,"instance":1,"number":1,"origin":"input","store":"build"},{"action":{"cart":{"_0":{"add":{"_0":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"}}}}},"after":{"cart":{"lines":[{"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}]}},"at":0,"before":{"cart":{"lines":[]}},"cause":2,"date":1800000000000,"instance":2,"number":2,"origin":"input","store":"cart"},{"action":{"applyDiscount":{"code":"band10"}},"after":{"cart":{"lines":[{"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}]},"discount":{"code":"BAND10","percent":10}},"at":0,"before":{"cart":{"lines":[{"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}]}},"cause":3,"date":1800000000000,"instance":2,"number":3,"origin":"input","store":"cart"},{"action":{"applyDiscount":{"code":"staff50"}},"at":0,"before":{"cart":{"lines":[{"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}]},"discount":{"code":"BAND10","percent":10}},"cause":4,"date":1800000000000,"instance":2,"number":4,"origin":"input","refusal":"discount(LuthierFeatures.CartViewModel.DiscountFailure.unknown(\"staff50\"))","store":"cart"},{"action":{"checkoutRequested":{"_0":{"discount":{"code":"BAND10","percent":10},"lines":[{"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"source":"cart"}}},"after":{"checkoutPhase":{"loading":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"soldOut":[]},"at":0,"before":{"checkoutPhase":{"idle":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"soldOut":[]},"date":1800000000000,"instance":1,"number":5,"origin":"input","store":"build"},{"action":{"checkoutFinished":{"_0":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"}}},"after":{"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"checkoutPhase":{"idle":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"soldOut":[]},"at":0,"before":{"checkoutPhase":{"loading":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"soldOut":[]},"date":1800000000000,"instance":1,"number":6,"origin":"effect","store":"build"},{"action":{"currencyChosen":{"_0":"EUR"}},"after":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":false,"isOrdering":false,"selectedCurrency":"EUR","shipping":"pickup","shownRate":{"asOf":0,"currency":"USD","perDollar":"1"}},"at":0,"before":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":false,"isOrdering":false,"selectedCurrency":"USD","shipping":"pickup","shownRate":{"asOf":0,"currency":"USD","perDollar":"1"}},"cause":6,"date":1800000000000,"instance":3,"number":7,"origin":"input","store":"checkout"},{"action":{"currencySettled":{"_0":"EUR"}},"after":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":true,"isOrdering":false,"selectedCurrency":"EUR","shipping":"pickup","shownRate":{"asOf":0,"currency":"USD","perDollar":"1"}},"at":500,"before":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":false,"isOrdering":false,"selectedCurrency":"EUR","shipping":"pickup","shownRate":{"asOf":0,"currency":"USD","perDollar":"1"}},"cause":6,"date":1800000000000,"instance":3,"number":8,"origin":"effect","store":"checkout"},{"action":{"rateArrived":{"_0":{"asOf":1800000000000,"currency":"EUR","perDollar":"0.83"}}},"after":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":false,"isOrdering":false,"selectedCurrency":"EUR","shipping":"pickup","shownRate":{"asOf":1800000000000,"currency":"EUR","perDollar":"0.83"}},"at":500,"before":{"availability":{"available":{}},"checkout":{"discount":{"code":"BAND10","percent":10},"estimate":{"months":2},"id":"checkout-1","lines":[{"availability":{"available":{}},"guitar":{"body":"mahogany","color":"sky","fretboard":"rosewood","shape":"longV"},"quantity":1}],"shippingOptions":[{"method":"pickup","price":{"currency":"USD","minorUnits":0}},{"method":"ground","price":{"currency":"USD","minorUnits":10000}},{"method":"express","price":{"currency":"USD","minorUnits":25000}}],"source":"cart"},"isLoadingRate":true,"isOrdering":false,"selectedCurrency":"EUR","shipping":"pickup","shownRate":{"asOf":0,"currency":"USD","perDollar":"1"}},"cause":6,"date":1800000000000,"instance":3,"number":9,"origin":"effect","store":"checkout"}]}"#
}
