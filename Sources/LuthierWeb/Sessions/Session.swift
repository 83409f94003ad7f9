import LuthierFeatures
import Synchronization

/// One customer's browser session: its view model, the fragments rendered from its outputs, and
/// how recently it was used.
public final class Session: Sendable {
    private struct Activity {
        var idleSweeps = 0
        var openStreams = 0
    }

    public let id: SessionID
    public let build: BuildViewModel
    public let fragments: FragmentStore
    private let renderer: PageRenderer
    /// The output the initial fragments were rendered from: the driver diffs against it first.
    private let initialOutput: BuildOutput
    private let activity = Mutex(Activity())

    init(id: SessionID, build: BuildViewModel, renderer: PageRenderer) {
        self.id = id
        self.build = build
        self.renderer = renderer
        initialOutput = build.currentOutput
        fragments = FragmentStore(initial: BuildFragments.all(initialOutput, renderer: renderer))
    }

    /// The output driver: follows the view model and renders each change's fragments once, for
    /// every stream of the session. Ends when the view model closes or the task is cancelled.
    func drive() async {
        var previous = initialOutput
        for await output in build.outputs() {
            fragments.publish(BuildFragments.changed(from: previous, to: output, renderer: renderer))
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

    /// Counts one idle sweep and says whether the session has now been idle for `limit` sweeps.
    /// A session with an open stream is in use, however quiet.
    func sweep(limit: Int) -> Bool {
        activity.withLock { activity in
            guard activity.openStreams == 0 else {
                activity.idleSweeps = 0
                return false
            }
            activity.idleSweeps += 1
            return activity.idleSweeps >= limit
        }
    }

    /// Ends the output driver and every stream.
    func close() {
        build.close()
        fragments.finish()
    }
}
