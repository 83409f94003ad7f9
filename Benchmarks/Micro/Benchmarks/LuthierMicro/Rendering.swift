import Benchmark
import LuthierDomain
import LuthierFeatures
import LuthierWeb

/// Template rendering and the guitar drawing: what a page load or a change costs when the render
/// caches miss (a new configuration, or a cache that has evicted it).
func renderingBenchmarks() {
    Benchmark(
        "Render builder page",
        configuration: .micro,
        closure: { benchmark, renderer in
            let page = BuilderPageContext(cart: Fixtures.cartOutput, output: Fixtures.buildOutput)
            for _ in benchmark.scaledIterations {
                blackHole(renderer.render(page, template: "builder"))
            }
        },
        setup: { () async throws -> PageRenderer in
            let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
            // A context the template no longer matches would render a near-empty page, fast and wrong.
            let page = BuilderPageContext(cart: Fixtures.cartOutput, output: Fixtures.buildOutput)
            let html = renderer.render(page, template: "builder")
            guard html.contains("<svg"), html.contains("id=\"picker-fretboard\""), html.contains("3 guitars") else {
                throw FixtureError(description: "the builder page rendered without its picture, pickers or cart")
            }
            return renderer
        }
    )

    fragmentBenchmark("guitar-picture", rendering: Fixtures.buildOutput.artwork)
    // A one-value template whose context is the whole output: what reflecting over `BuildOutput` costs.
    fragmentBenchmark("guitar-price", rendering: Fixtures.buildOutput)
    // The loop-heavy fragment: four options, each looking up names in its own and its picker's context.
    fragmentBenchmark("picker", rendering: Fixtures.buildOutput.pickers[0])

    Benchmark(
        "Render builder fragments (all 8)",
        configuration: .micro,
        closure: { benchmark, renderer in
            let output = Fixtures.buildOutput
            for _ in benchmark.scaledIterations {
                blackHole(Fixtures.builderFragments(output, renderer: renderer))
            }
        },
        setup: { try await PageRenderer(directory: RepositoryPaths.templates) }
    )

    Benchmark("Draw guitar SVG", configuration: .micro) { benchmark in
        let guitar = Fixtures.guitar
        for _ in benchmark.scaledIterations {
            blackHole(GuitarArtwork.Drawing(guitar: guitar).svg)
        }
    }
}

/// What rendering the fragment template `fragments/<name>` with `context` costs.
private func fragmentBenchmark(_ name: String, rendering context: some Sendable) {
    Benchmark(
        "Render fragment \(name)",
        configuration: .micro,
        closure: { benchmark, renderer in
            for _ in benchmark.scaledIterations {
                blackHole(renderer.render(context, template: "fragments/\(name)"))
            }
        },
        setup: { try await PageRenderer(directory: RepositoryPaths.templates) }
    )
}
