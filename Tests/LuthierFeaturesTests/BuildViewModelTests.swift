import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct BuildViewModelTests {
    @Test func startsWithTheStandardGuitarAndShowsWhatThePageNeeds() {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        let output = model.currentOutput
        #expect(output.guitar == .standard)
        #expect(output.description == "Natural Casual with Mahogany body and Rosewood fretboard")
        #expect(output.price == "$2,000")
        #expect(output.checkoutButton.label == "Checkout ($2,000)")
        #expect(output.pickers.map(\.title) == ["Shape", "Color", "Body", "Fretboard"])
        #expect(output.pickers.map(\.selectedLabel) == ["Casual", "Natural", "Mahogany", "Rosewood"])
        #expect(
            output.picker(for: .shape)?.options.map(\.label) == [
                "Casual", "Chunky", "Long V (+$75)", "Sharp V (+$100)",
            ]
        )
        #expect(output.artwork == GuitarArtwork(guitar: .standard))
    }

    @Test func aChangeInComesOutAsTheNewGuitarWithEveryDerivedValue() async throws {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        var outputs = model.outputs().makeAsyncIterator()
        #expect(await outputs.next()?.guitar == .standard)

        await model.send(.change(GuitarChange(shape: .longV, color: .sky)))
        let output = try #require(await outputs.next())
        #expect(output.description == "Sky Long V with Mahogany body and Rosewood fretboard")
        #expect(output.checkoutButton.label == "Checkout ($2,225)")
        #expect(output.picker(for: .shape)?.options.first(where: \.isSelected)?.value == "longV")
        #expect(output.picker(for: .color)?.selectedLabel == "Sky (+$150)")
        #expect(output.picker(for: .body)?.options.filter(\.isSelected).map(\.value) == ["mahogany"])
        #expect(output.artwork == GuitarArtwork(guitar: output.guitar))
    }

    @Test func startOverReturnsToTheStandardGuitar() async {
        let model = BuildViewModel(
            state: BuildState(guitar: Guitar(shape: .sharpV, color: .dusk, body: .koa)), environment: .test(),
            sessionKey: "session")
        await model.send(.startOver)
        #expect(model.currentOutput.guitar == .standard)
        #expect(model.latestState == BuildState())
    }

    @Test func aChangeThatChangesNothingEmitsNothing() async throws {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        var outputs = model.outputs().makeAsyncIterator()
        _ = await outputs.next()
        await model.send(.change(GuitarChange(shape: .casual)))  // already casual
        await model.send(.startOver)  // already standard
        await model.send(.change(GuitarChange(color: .earth)))
        // The first thing to arrive is the one real change: duplicates were dropped.
        #expect(await outputs.next()?.guitar.color == .earth)
    }

    @Test func everyReaderSeesTheChangeAndASlowReaderSeesOnlyTheNewest() async throws {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        var fast = model.outputs().makeAsyncIterator()
        var slow = model.outputs().makeAsyncIterator()
        _ = await fast.next()
        _ = await slow.next()

        for shape in [Shape.chunky, .longV, .sharpV] {
            await model.send(.change(GuitarChange(shape: shape)))
            #expect(await fast.next()?.guitar.shape == shape)
        }
        // The slow reader did not read while three changes happened: it gets the latest, once.
        #expect(await slow.next()?.guitar.shape == .sharpV)
        await model.send(.change(GuitarChange(color: .dusk)))
        #expect(await slow.next()?.guitar == Guitar(shape: .sharpV, color: .dusk))
    }

    @Test func concurrentChangesFromManyTabsAreAllApplied() async {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await model.send(.change(GuitarChange(shape: .longV))) }
            group.addTask { await model.send(.change(GuitarChange(color: .earth))) }
            group.addTask { await model.send(.change(GuitarChange(body: .swampAsh))) }
            group.addTask { await model.send(.change(GuitarChange(fretboard: .ebony))) }
        }
        #expect(model.currentOutput.guitar == Guitar(shape: .longV, color: .earth, body: .swampAsh, fretboard: .ebony))
        #expect(model.currentOutput.price == "$2,305")
    }

    @Test func closingEndsEveryOutputSequenceAndReleasesItsReaders() async {
        let model = BuildViewModel(environment: .test(), sessionKey: "session")
        let outputs = model.outputs()
        #expect(model.outputSubscriberCount == 1)
        model.close()
        var received: [BuildOutput] = []
        for await output in outputs { received.append(output) }
        #expect(received.count <= 1)
        #expect(model.outputSubscriberCount == 0)
        // A reader that arrives after closing ends at once.
        var late = model.outputs().makeAsyncIterator()
        #expect(await late.next() == nil)
    }
}
