import Benchmark
import LuthierWeb
import ServerMachinery
import Synchronization

/// The `patch` server-sent event: every change is escaped into JSON once per version and written
/// to every open tab of the session, so its encoding is on the path of every picker click.
func eventStreamBenchmarks() {
    // What a new stream is sent first: every builder fragment, through the store's own encoding path.
    Benchmark(
        "FragmentStore.patchEvent (all builder fragments)",
        configuration: .micro,
        closure: { (benchmark: Benchmark, store: FragmentStore) in
            for _ in benchmark.scaledIterations {
                blackHole(store.patchEvent(since: 0))
            }
        },
        setup: { () async throws -> FragmentStore in
            let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
            return FragmentStore(initial: Fixtures.builderFragments(Fixtures.buildOutput, renderer: renderer))
        }
    )

    // What a kiosk change costs the renderer's task before the event loops take over: a change
    // published to a store a thousand streams follow, each woken (its flag raised, as a stream's
    // waker does before scheduling its catch-up) after the store's lock is let go.
    Benchmark(
        "FragmentStore.publish (1,000 streams woken)",
        configuration: .micro,
        closure: { (benchmark: Benchmark, store: FragmentStore) in
            for iteration in benchmark.scaledIterations {
                store.publish([Fragment(target: "kiosk-orders", html: "<li>order \(iteration)</li>")])
            }
        },
        setup: { () async throws -> FragmentStore in
            let store = FragmentStore(initial: [Fragment(target: "kiosk-orders", html: "<li>none</li>")])
            for _ in 0..<1_000 {
                let raised = Atomic<Bool>(false)
                _ = store.addWaker(
                    StreamWaker(wake: { _ = raised.exchange(true, ordering: .acquiringAndReleasing) }, finish: {}))
            }
            return store
        }
    )

    // What one picker change mostly sends: the picture, about 14 KB of SVG to escape.
    Benchmark(
        "ServerSentEvent.patch (guitar-picture)",
        configuration: .micro,
        closure: { (benchmark: Benchmark, fragments: [Fragment]) in
            for _ in benchmark.scaledIterations {
                blackHole(ServerSentEvent.patch(id: 42, fragments: fragments))
            }
        },
        setup: { () async throws -> [Fragment] in
            let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
            return [
                Fragment(
                    target: "guitar-picture",
                    html: renderer.render(Fixtures.buildOutput.artwork, template: "fragments/guitar-picture"))
            ]
        }
    )
}
