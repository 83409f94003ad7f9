import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct CartViewModelTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let codes = [
        DiscountCode(code: "BAND10", percent: 10, expires: now.addingTimeInterval(3_600)),
        DiscountCode(code: "OLD20", percent: 20, expires: now.addingTimeInterval(-1)),
    ]

    static func model() -> CartViewModel {
        CartViewModel(discounts: codes, now: { now })
    }

    @Test func actionsInComeOutAsLinesTotalsAndTheBadgeCount() async throws {
        let model = Self.model()
        var outputs = model.outputs().makeAsyncIterator()
        #expect(await outputs.next()?.isEmpty == true)

        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(.standard))
        let output = model.currentOutput
        #expect(output.guitarCount == 3)
        #expect(output.lines.map(\.quantity) == [2, 1])
        #expect(output.lines.map(\.total) == ["$4,150", "$2,000"])
        #expect(output.lines.first?.unitPrice == "$2,075")
        #expect(output.total == "$6,150")
        #expect(output.discountedTotal == nil)
        // A reader that fell behind gets the newest cart, once.
        #expect(await outputs.next()?.guitarCount == 3)
    }

    @Test func aRefusedActionChangesNothingAndEmitsNothing() async throws {
        let model = Self.model()
        try await model.send(.add(.standard))
        let before = model.currentOutput
        await #expect(throws: CartError.unknownLine(id: "nope")) { try await model.send(.remove(lineID: "nope")) }
        #expect(model.currentOutput == before)
        #expect(await model.currentCart.guitarCount == 1)
    }

    @Test func aValidCodeShowsTheDiscountedTotalAndOthersSayWhyNot() async throws {
        let model = Self.model()
        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(Guitar(shape: .longV)))

        await #expect(throws: CartViewModel.DiscountFailure.unknown("NOPE")) {
            try await model.applyDiscount(code: "NOPE")
        }
        await #expect(throws: CartViewModel.DiscountFailure.expired("OLD20")) {
            try await model.applyDiscount(code: "old20")
        }
        #expect(model.currentOutput.discountedTotal == nil)

        try await model.applyDiscount(code: " band10 ")
        #expect(model.currentOutput.discountCode == "BAND10")
        #expect(model.currentOutput.discountedTotal == "$3,735")
        #expect(CartViewModel.DiscountFailure.expired("OLD20").message == "The code 'OLD20' has expired.")
    }

    @Test func theAnalyticsSubscriberSeesEveryAppliedActionAndNeverHoldsTheCartUp() async throws {
        let model = Self.model()
        let applied = model.appliedActions()
        // Nobody reads while 1,200 actions are applied: the cart is not slowed or blocked.
        for _ in 0..<1_200 {
            try await model.send(.add(.standard))
            try await model.send(.decrement(lineID: CartLine.id(for: .standard)))
        }
        try await model.send(.add(Guitar(color: .sky)))
        model.close()
        var seen: [CartViewModel.AppliedAction] = []
        for await action in applied { seen.append(action) }
        #expect(seen.count == 1_000)  // bounded: the oldest were dropped, the newest kept
        #expect(seen.last?.action == .add(Guitar(color: .sky)))
        #expect(seen.last?.cart.guitarCount == 1)
        #expect(seen.last?.at == Self.now)
        #expect(await model.currentCart.guitarCount == 1)
    }
}
