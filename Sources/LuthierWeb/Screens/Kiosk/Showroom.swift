import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The shop's shared live state, one for the whole server: the workshop floor (orders and their
/// stages), the kiosk feed built on it, and the kiosk's fragments rendered once for every screen.
public final class Showroom: Sendable {
    public let floor: WorkshopFloor
    public let feed: KioskFeed
    /// The workshop journal's reader, whose panel the kiosk and `/journal` show.
    public let journal: JournalFeed
    /// The kiosk page's fragments, shared by every kiosk stream (conflated like a session's).
    public let kioskFragments: FragmentStore
    private let renderer: PageRenderer
    /// The kiosk's part of `kioskFragments`, rendered while a kiosk follows (or when read).
    let kiosk: KioskRendering
    /// The output the journal's panel was first rendered from: the renderer diffs against it
    /// first, so that a change made before the renderer starts is not lost.
    private let renderedJournal: JournalOutput

    /// Where the floor and the feed record their streams, for the shop's inspector.
    public let taps: TapRecorder?

    init(
        floor: WorkshopFloor, feed: KioskFeed, journal: JournalFeed, renderer: PageRenderer, taps: TapRecorder? = nil
    ) {
        self.taps = taps
        self.floor = floor
        self.feed = feed
        self.journal = journal
        self.renderer = renderer
        let kiosk = KioskRendering(feed: feed, renderer: renderer)
        self.kiosk = kiosk
        renderedJournal = journal.currentOutput
        kioskFragments = FragmentStore(
            initial: kiosk.initialFragments() + JournalFragments.table.all(renderedJournal, renderer: renderer),
            beforeRead: { kiosk.catchUp($0) })
    }

    /// Renders each kiosk output's changed fragments once, for every kiosk stream, while one
    /// follows (`KioskRendering`). A change made before this starts (the floor's first load) is
    /// rendered from the output the fragments were first rendered from.
    func renderKiosk() async {
        for await _ in feed.outputs() { kiosk.feedChanged(on: kioskFragments) }
    }

    /// Renders each journal output's changed panel once, into the same fragments: the kiosk's
    /// stream carries it (and `/journal`'s, which follows that stream).
    func renderJournal() async {
        await render(journal.outputs(), from: renderedJournal, with: JournalFragments.table)
    }

    /// Publishes what `table` renders differently for each of `outputs` than for the one before,
    /// starting from `first` (the output the fragments were first rendered from).
    private func render<Output: Sendable>(
        _ outputs: some AsyncSequence<Output, Never>, from first: Output, with table: FragmentTable<Output>
    ) async {
        var previous = first
        for await output in outputs {
            kioskFragments.publish(table.changed(from: previous, to: output, renderer: renderer))
            previous = output
        }
    }

    /// The journal panel's HTML as last published: a page drawn now shows what a stream opened now
    /// starts with (the reader may have moved on; its renderer then sends the change).
    var journalPanel: String { kioskFragments.html(of: JournalFragments.stories) ?? "" }

    /// Ends every output and every kiosk stream (on shutdown).
    func close() {
        journal.close()
        feed.close()
        floor.close()
        kioskFragments.finish()
    }
}
