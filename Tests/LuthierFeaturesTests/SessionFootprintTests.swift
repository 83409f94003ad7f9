import LuthierDomain
import LuthierFeatures
import Testing

/// What every session holds inline for as long as it lives, in several copies each: kept small,
/// since at ten thousand sessions each byte here is tens of kilobytes of the server's memory.
struct SessionFootprintTests {
    @Test func aSessionsSnapshotAndOutputKeepTheirCheckoutOutOfLine() {
        #expect(MemoryLayout<SessionSnapshot>.size <= 112)
        #expect(MemoryLayout<CartState>.size <= 40)
        #expect(MemoryLayout<SessionOutput>.size <= 320)
        #expect(MemoryLayout<CheckoutSnapshot>.size > 300, "the part kept out of line is the large one")
    }

    @Test func anActionFitsInlineWhereItIsTypeErased() {
        // An existential keeps up to three words inline; a larger value takes an allocation, in
        // every step a session's flight recorder keeps.
        #expect(MemoryLayout<BuildAction>.size <= 24)
        #expect(MemoryLayout<CartFeature.Action>.size <= 24)
    }

    @Test func aKeptStepHoldsItsStatesByReference() {
        // Each session's flight recorder keeps its last steps inline; a state is one reference,
        // shared by a step's state after and the next step's before.
        #expect(MemoryLayout<TracedState>.size == 8)
        #expect(MemoryLayout<TracedState?>.size == 8)
        // The action's container (40 bytes), the state before, the state after or the refusal,
        // the store's short name, two times, three 32-bit counts and the origin.
        #expect(MemoryLayout<TraceStep>.stride <= 104, "\(MemoryLayout<TraceStep>.stride)")
    }

    @Test func theEnvironmentsEffectsAreSharedByEveryCopy() {
        #expect(MemoryLayout<LuthierEnvironment>.size <= 16)
    }

    @Test func changingAnEffectChangesOnlyThatCopy() async throws {
        let original = LuthierEnvironment.test(makeID: { "first" })
        var changed = original
        changed.makeID = { "second" }
        changed.workshop.order = { _ in nil }

        #expect(original.makeID() == "first")
        #expect(changed.makeID() == "second")
        #expect(try await changed.workshop.order("LU-1") == nil)
    }
}
