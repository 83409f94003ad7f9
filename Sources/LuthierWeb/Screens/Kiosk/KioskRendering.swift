import LuthierFeatures
import ServerMachinery
import Synchronization

/// The kiosk's fragments rendered from the feed only while a kiosk follows them.
///
/// Every order changes the kiosk's lists, and the board lists every order in the workshop: a
/// render per order with no kiosk open was work that grew with the backlog for nobody (an eighth
/// of the server's time placing orders, once a few thousand were in progress). With no stream
/// following, a change of the feed only notes that the fragments are behind; the first read
/// (a kiosk's page or stream, `FragmentStore`'s `beforeRead`) renders what changed since, once.
final class KioskRendering: Sendable {
    private let feed: KioskFeed
    private let renderer: PageRenderer
    /// The output the fragments show, and the lock that keeps two renders from crossing.
    private let rendered: Mutex<KioskOutput>
    /// Whether the feed moved on since the fragments were rendered, nobody watching.
    private let behind = Atomic<Bool>(false)

    init(feed: KioskFeed, renderer: PageRenderer) {
        self.feed = feed
        self.renderer = renderer
        rendered = Mutex(feed.currentOutput)
    }

    /// Every fragment, as first rendered (from the feed's output when this was made).
    func initialFragments() -> [Fragment] {
        rendered.withLock { KioskFragments.table.all($0, renderer: renderer) }
    }

    /// The feed changed: rendered at once when a kiosk follows `store`, else noted.
    ///
    /// Noted before the followers are counted: a stream that registers after the count reads
    /// the store after the note, and its read renders.
    func feedChanged(on store: FragmentStore) {
        behind.store(true, ordering: .sequentiallyConsistent)
        guard store.subscriberCount > 0 else { return }
        rendered.withLock { render(on: store, from: &$0) }
    }

    /// Before a read of `store`: what the feed changed while nobody watched, rendered now. A
    /// render under way elsewhere is not waited for: it publishes, and wakes the streams.
    func catchUp(_ store: FragmentStore) {
        guard behind.load(ordering: .sequentiallyConsistent) else { return }
        _ = rendered.withLockIfAvailable { render(on: store, from: &$0) }
    }

    /// Whether the fragments wait for a reader to render the feed's latest changes.
    var isBehind: Bool { behind.load(ordering: .sequentiallyConsistent) }

    /// Publishes what changed from `shown` to the feed's current output (the newest, whichever
    /// change asked), and makes that what is shown.
    private func render(on store: FragmentStore, from shown: inout KioskOutput) {
        behind.store(false, ordering: .sequentiallyConsistent)
        let output = feed.currentOutput
        store.publish(KioskFragments.table.changed(from: shown, to: output, renderer: renderer))
        shown = output
    }
}
