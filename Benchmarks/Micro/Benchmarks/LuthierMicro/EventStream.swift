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

/// A change to one line of a twenty-line cart: the edits that send its quantity and total instead
/// of the list, found by comparing the line's markup before and after (`FragmentItem.edits`).
func listEditBenchmarks() {
    struct Line: Equatable {
        let id: String
        let quantity: Int
    }
    func markup(_ line: Line) -> String {
        """
        <li class="cart-line" id="line-\(line.id)" data-line="\(line.id)">
          <div class="cart-line-picture" aria-hidden="true"><img class="guitar-artwork" src="/guitars/\(line.id).svg" alt="A guitar" width="400" height="1000"></div>
          <div class="cart-line-body">
            <p class="cart-line-description">A guitar, line \(line.id)</p>
            <div class="quantity" role="group" aria-label="Quantity of line \(line.id)">
              <form method="post" action="/cart/lines/\(line.id)/decrement"><button id="decrement-\(line.id)" type="submit">−</button></form>
              <span class="qty-value" id="quantity-\(line.id)">\(line.quantity)</span>
              <form method="post" action="/cart/lines/\(line.id)/increment"><button id="increment-\(line.id)" type="submit">+</button></form>
            </div>
          </div>
          <p class="cart-line-total" id="line-total-\(line.id)">$\(line.quantity * 2_000)</p>
        </li>

        """
    }
    let before = (1...20).map { Line(id: "longV-sky-koa-ebony-\($0)", quantity: 1) }
    var after = before
    after[9] = Line(id: before[9].id, quantity: 2)
    Benchmark("FragmentItem.edits (one line of twenty changed)", configuration: .micro) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FragmentItem.edits(from: before, to: after, id: { "line-\($0.id)" }, render: markup))
        }
    }
}
