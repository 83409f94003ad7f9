import LuthierDomain

/// The one journal reader behind every kiosk and `/journal` page: a `Store` of `JournalFeature`
/// and its output computed once per state, as `KioskFeed` is for the kiosk.
public final class JournalFeed: Sendable {
    public let store: Store<JournalFeature>
    private let shared: SharedOutput<JournalState, JournalOutput>

    public init(
        news: NewsClient, clock: any Clock<Duration>, settings: JournalFeature.Settings = .init(),
        taps: TapRecorder? = nil, feedback: AsyncStream<(JournalFeature.Action, JournalState)>.Continuation? = nil
    ) {
        store = Store(
            initialState: JournalState(), reducer: JournalFeature(news: news, clock: clock, settings: settings),
            feedback: feedback, tap: taps.map { Tap($0, "journal") })
        shared = SharedOutput(initial: JournalState(), JournalOutput.init(state:))
    }

    /// Reads the journal until the task is cancelled (the shop's service).
    public func run() async {
        await store.run(starting: .start)
    }

    public var currentOutput: JournalOutput { shared.output(for: store.state) }

    /// The current output, then every change (newest-wins per reader).
    public func outputs() -> SharedOutput<JournalState, JournalOutput>.Outputs { shared.outputs(of: store.states()) }

    /// Ends the reader and every reader's outputs (on shutdown).
    public func close() { store.close() }
}
