import Benchmark
import LuthierWeb

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
