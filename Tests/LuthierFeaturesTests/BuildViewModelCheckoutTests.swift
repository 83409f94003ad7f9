import Clocks
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct BuildViewModelCheckoutTests {
    @Test func checkoutRunsEachWorkshopCallOnceAndBecomesTheSessionsCheckout() async throws {
        let workshop = FakeWorkshop()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        await model.send(.change(GuitarChange(shape: .longV)))

        let checkout = try await model.checkout()

        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
        #expect(checkout.checkout.source == .builder)
        #expect(
            checkout.checkout.lines == [
                CheckoutLine(guitar: Guitar(shape: .longV), quantity: 1, availability: .available)
            ]
        )
        #expect(checkout.checkout.discount == nil)
        #expect(workshop.asked.availability == [[CartLine(guitar: Guitar(shape: .longV), quantity: 1)]])
        #expect(checkout.checkout.estimate == BuildEstimate(months: 3))
        #expect(checkout.checkout.shippingOptions.map(\.method) == [.pickup, .ground, .express])
        #expect(model.currentCheckout === checkout)
        #expect(model.currentOutput.checkoutID == "checkout-1")
        // Everyone who reads the result reads the same one: nothing is asked again.
        _ = checkout.currentOutput
        _ = model.currentCheckout?.currentOutput
        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
    }

    @Test func whileLoadingEveryTabSeesTheButtonBusyAndASecondCheckoutStartsNothing() async throws {
        let workshop = FakeWorkshop()
        workshop.closeGate()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")

        let first = model.requestCheckout()
        #expect(model.currentOutput.checkoutButton.isLoading)
        #expect(model.currentOutput.checkoutButton.label == "Checking out…")

        let second = model.requestCheckout()
        let third = model.requestCheckout()
        workshop.openGate()

        let results = try await [first.value(), second.value(), third.value()]
        #expect(results.allSatisfy { $0 === results[0] })
        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
        #expect(!model.currentOutput.checkoutButton.isLoading)
        #expect(model.currentOutput.checkoutButton.label == "Checkout ($2,000)")
    }

    @Test func aFailedCallShowsAMessageAndLeavesNoCheckout() async {
        let workshop = FakeWorkshop()
        workshop.failEstimates()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")

        await #expect(throws: BuildViewModel.CheckoutFailure.workshopUnreachable) {
            try await model.checkout()
        }
        #expect(model.currentCheckout == nil)
        #expect(model.currentOutput.checkoutButton.error == "The workshop could not be reached; please try again.")
        #expect(!model.currentOutput.checkoutButton.isLoading)
        // A retry really asks again.
        await #expect(throws: BuildViewModel.CheckoutFailure.workshopUnreachable) {
            try await model.checkout()
        }
        #expect(workshop.counts.estimate == 2)
    }

    @Test func leavingOrStartingOverEndsTheCheckout() async throws {
        let workshop = FakeWorkshop()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        await model.send(.change(GuitarChange(color: .sky)))
        let checkout = try await model.checkout()
        var outputs = checkout.outputs().makeAsyncIterator()
        _ = await outputs.next()

        await model.send(.checkoutEnded)
        #expect(model.currentCheckout == nil)
        #expect(model.currentOutput.checkoutID == nil)
        #expect(model.currentOutput.guitar.color == .sky)
        #expect(await outputs.next() == nil)  // the checkout's outputs ended

        _ = try await model.checkout()
        await model.send(.startOver)
        #expect(model.currentCheckout == nil)
        #expect(model.currentOutput.guitar == .standard)
    }

    // MARK: - Checking out a cart

    static let longV = Guitar(shape: .longV)
    static let koa = Guitar(color: .sky, body: .koa)
    static let cart = Cart(lines: [CartLine(guitar: longV, quantity: 2), CartLine(guitar: koa, quantity: 1)])
    static let tenOff = DiscountCode(code: "BAND10", percent: 10)

    @Test func aCartCheckoutAsksAboutEveryLineOnceAndAnswersPerLine() async throws {
        let workshop = FakeWorkshop()
        workshop.setAvailability { line in
            line.guitar.body == .koa ? .unavailable(missing: ["Koa body blanks"]) : .available
        }
        workshop.set(estimate: BuildEstimate(months: 5))
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        await model.send(.change(GuitarChange(shape: .sharpV)))  // the builder's guitar is not what is checked out

        let checkout = try await model.checkout(cart: Self.cart, discount: Self.tenOff)

        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
        #expect(
            workshop.asked
                == FakeWorkshop.Asked(
                    availability: [Self.cart.lines], estimate: [Self.cart.lines], shippingOptions: [Self.cart.lines]))
        #expect(checkout.checkout.source == .cart)
        #expect(
            checkout.checkout.lines == [
                CheckoutLine(guitar: Self.longV, quantity: 2, availability: .available),
                CheckoutLine(guitar: Self.koa, quantity: 1, availability: .unavailable(missing: ["Koa body blanks"])),
            ])
        #expect(checkout.checkout.availability == .unavailable(missing: ["Koa body blanks"]))
        #expect(checkout.checkout.discount == Self.tenOff)
        #expect(checkout.checkout.estimate == BuildEstimate(months: 5))
        #expect(checkout.checkout.id == "checkout-1")
        #expect(checkout.artworks == [GuitarArtwork(guitar: Self.longV), GuitarArtwork(guitar: Self.koa)])
        #expect(model.currentCheckout === checkout)
        #expect(model.latestState.checkout == checkout.checkout)
        #expect(model.currentOutput.checkoutID == "checkout-1")
        // The builder keeps its own guitar.
        #expect(model.currentOutput.guitar == Guitar(shape: .sharpV))
        #expect(checkout.currentOutput.isCart)
    }

    @Test func aCartCheckoutWithoutACodeCarriesNone() async throws {
        let workshop = FakeWorkshop()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        let checkout = try await model.checkout(cart: Self.cart, discount: nil)
        #expect(checkout.checkout.discount == nil)
        #expect(checkout.checkout.availability == .available)
        #expect(checkout.currentOutput.discountLabel == nil)
    }

    @Test func aSecondCheckoutWhileACartCheckoutLoadsJoinsIt() async throws {
        let workshop = FakeWorkshop()
        workshop.closeGate()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")

        let first = try model.requestCheckout(cart: Self.cart, discount: Self.tenOff)
        #expect(model.currentOutput.checkoutButton.isLoading)
        #expect(model.latestState.checkoutPhase == .loading)

        // Another cart tab and the builder tab press their buttons meanwhile: both join.
        let again = try model.requestCheckout(
            cart: Cart(lines: [CartLine(guitar: .standard, quantity: 1)]), discount: nil)
        let builder = model.requestCheckout()
        workshop.openGate()

        let results = try await [first.value(), again.value(), builder.value()]
        #expect(results.allSatisfy { $0 === results[0] })
        #expect(results[0].checkout.source == .cart)
        #expect(results[0].checkout.cartLines == Self.cart.lines)
        #expect(results[0].checkout.discount == Self.tenOff)
        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
        #expect(model.latestState.checkoutPhase == .idle)

        // Once it has arrived, a new request is a new checkout.
        let next = try await model.checkout()
        #expect(next !== results[0])
        #expect(next.checkout.source == .builder)
        #expect(workshop.counts == FakeWorkshop.Counts(availability: 2, estimate: 2, shippingOptions: 2))
    }

    @Test func aWorkshopThatDoesNotAnswerEveryLineFailsTheCheckout() async {
        let workshop = FakeWorkshop()
        workshop.set(availabilityAnswers: [.available])  // one answer for two lines
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        await #expect(throws: BuildViewModel.CheckoutFailure.workshopUnreachable) {
            try await model.checkout(cart: Self.cart, discount: nil)
        }
        #expect(model.currentCheckout == nil)
        #expect(model.latestState.checkoutPhase == .failed("The workshop could not be reached; please try again."))
    }

    @Test func aNewCheckoutReplacesAndClosesTheOldOne() async throws {
        let workshop = FakeWorkshop()
        let model = BuildViewModel(environment: .test(workshop: workshop.client), sessionKey: "session")
        let builder = try await model.checkout()
        var outputs = builder.outputs().makeAsyncIterator()
        _ = await outputs.next()

        let cart = try await model.checkout(cart: Self.cart, discount: nil)
        #expect(model.currentCheckout === cart)
        #expect(await outputs.next() == nil)  // the builder's checkout was closed
    }
}
