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
        #expect(checkout.checkout.guitar == Guitar(shape: .longV))
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

        let first = Task { try await model.checkout() }
        #expect(await settle { workshop.waitingCalls == 3 })
        #expect(model.currentOutput.checkoutButton.isLoading)
        #expect(model.currentOutput.checkoutButton.label == "Checking out…")

        let second = Task { try await model.checkout() }
        let third = Task { try await model.checkout() }
        #expect(await settle { workshop.waitingCalls == 3 })
        workshop.openGate()

        let results = try await [first.value, second.value, third.value]
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
}
