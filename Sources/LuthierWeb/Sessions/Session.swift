import LuthierFeatures
import Synchronization

/// One customer's browser session: its view models, the fragments rendered from their outputs,
/// and how recently it was used.
public final class Session: Sendable {
    private struct Activity {
        var idleSweeps = 0
        var openStreams = 0
    }

    public let id: SessionID
    /// An anonymous key, separate from the cookie, stored with the session's orders so that the
    /// session can see them without their link (the cookie value itself is never stored).
    public let orderKey: String
    public let build: BuildViewModel
    public let fragments: FragmentStore
    private let renderer: PageRenderer
    /// The output the initial fragments were rendered from: the driver diffs against it first.
    private let initialOutput: BuildOutput
    private let activity = Mutex(Activity())

    init(id: SessionID, orderKey: String, build: BuildViewModel, renderer: PageRenderer) {
        self.id = id
        self.orderKey = orderKey
        self.build = build
        self.renderer = renderer
        initialOutput = build.currentOutput
        fragments = FragmentStore(initial: BuildFragments.all(initialOutput, renderer: renderer))
    }

    /// The output driver: follows the builder (and the checkout, when there is one) and renders
    /// each change's fragments once, for every stream of the session. A new checkout also tells
    /// every open page to go to it, and leaving it sends them back to the builder. Ends when the
    /// view model closes or the task is cancelled.
    func drive() async {
        await withDiscardingTaskGroup { group in
            var previous = initialOutput
            for await output in build.outputs() {
                var navigate: String?
                if output.checkoutID != previous.checkoutID {
                    if let model = build.currentCheckout, model.checkout.id == output.checkoutID {
                        group.addTask { await model.run() }
                        group.addTask { await self.follow(model) }
                        navigate = "/checkout"
                    } else if output.checkoutID == nil {
                        navigate = "/"
                    }
                }
                fragments.publish(
                    BuildFragments.changed(from: previous, to: output, renderer: renderer),
                    navigate: navigate
                )
                previous = output
            }
            group.cancelAll()
        }
    }

    private func follow(_ checkout: CheckoutViewModel) async {
        var previous: CheckoutOutput?
        for await output in checkout.outputs() {
            fragments.publish(CheckoutFragments.changed(from: previous, to: output, renderer: renderer))
            previous = output
        }
    }

    /// Marks the session as used now.
    func touch() {
        activity.withLock { $0.idleSweeps = 0 }
    }

    func streamOpened() {
        activity.withLock {
            $0.openStreams += 1
            $0.idleSweeps = 0
        }
    }

    func streamClosed() {
        activity.withLock {
            $0.openStreams -= 1
            $0.idleSweeps = 0
        }
    }

    /// Counts one idle sweep and says whether the session has now been idle for more than `limit`
    /// sweeps: the first sweep after its last use may come at once, so only the sweeps after it
    /// each prove a full interval of idleness. A session with an open stream is in use.
    func sweep(limit: Int) -> Bool {
        activity.withLock { activity in
            guard activity.openStreams == 0 else {
                activity.idleSweeps = 0
                return false
            }
            activity.idleSweeps += 1
            return activity.idleSweeps > limit
        }
    }

    /// Ends the output driver and every stream.
    func close() {
        build.close()
        fragments.finish()
    }
}
