import LuthierDomain
import LuthierFeatures

/// The shop's shared live state, one for the whole server: the workshop floor (orders and their
/// stages), the kiosk feed built on it, and the kiosk's fragments rendered once for every screen.
public final class Showroom: Sendable {
    public let floor: WorkshopFloor
    public let feed: KioskFeed
    /// The kiosk page's fragments, shared by every kiosk stream (conflated like a session's).
    public let kioskFragments: FragmentStore
    private let renderer: PageRenderer
    /// The output `kioskFragments` was first rendered from: the renderer diffs against it first,
    /// so that a change made before the renderer starts (the floor's first load) is not lost.
    private let renderedOutput: KioskOutput

    /// Where the floor and the feed record their streams, for the shop's inspector.
    public let taps: TapRecorder?

    init(floor: WorkshopFloor, feed: KioskFeed, renderer: PageRenderer, taps: TapRecorder? = nil) {
        self.taps = taps
        self.floor = floor
        self.feed = feed
        self.renderer = renderer
        renderedOutput = feed.currentOutput
        kioskFragments = FragmentStore(initial: KioskFragments.table.all(renderedOutput, renderer: renderer))
    }

    /// Renders each kiosk output's changed fragments once, for every kiosk stream.
    func renderKiosk() async {
        var previous = renderedOutput
        for await output in feed.outputs() {
            kioskFragments.publish(KioskFragments.table.changed(from: previous, to: output, renderer: renderer))
            previous = output
        }
    }

    /// Ends every output and every kiosk stream (on shutdown).
    func close() {
        feed.close()
        floor.close()
        kioskFragments.finish()
    }
}
