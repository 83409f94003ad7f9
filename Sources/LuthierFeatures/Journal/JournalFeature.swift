import Foundation
import LuthierDomain

/// The journal reader: the seeds' Hacker News client, as a reducer.
///
/// Read a load as the seeds wrote it:
///
///     Timer.publish(every: refresh).prepend(())
///         .flatMapLatest { api.newStoryIDs().timeout(t).mapError(NewsError.init) }
///         .flatMap { ids in ids.prefix(max).publisher }
///         .flatMap(maxPublishers: .max(4)) { id in api.story(id).timeout(t).catch { Empty() } }
///         .scan([]) { stories, story in (stories + [story]).sorted(by: isNewer) }
///
/// - the list of ids is asked with a deadline on the injected clock, and a failure becomes one of
///   the two `NewsError` cases, shown as a calm notice while the stories stay;
/// - each story is asked with the same deadline, `maxInFlight` at a time, and arrives in the
///   order the answers come; one that fails or is garbage is dropped, and the rest are shown;
/// - the fold keeps the list sorted newest first as it fills in, story by story;
/// - a refresh replaces a load still running (`cancellable`): only the newest load's answers land.
public struct JournalFeature: Reducer {
    public typealias State = JournalState

    public enum Action: Hashable, Sendable {
        /// Starts the refresh timer and the first load (once, when the shop starts).
        case start
        case refresh
        case listed([Int])
        case listFailed(NewsError)
        case arrived(JournalStory)
        case dropped(id: Int)
        case loadFinished
    }

    /// How the reader reads: how many stories, how long one request may take, how often.
    public struct Settings: Hashable, Sendable {
        public var maxStories: Int
        public var requestTimeout: Duration
        public var refreshInterval: Duration
        public var maxInFlight: Int

        public init(
            maxStories: Int = 30, requestTimeout: Duration = .seconds(5), refreshInterval: Duration = .seconds(60),
            maxInFlight: Int = 4
        ) {
            self.maxStories = maxStories
            self.requestTimeout = requestTimeout
            self.refreshInterval = refreshInterval
            self.maxInFlight = maxInFlight
        }
    }

    static let load = EffectID("journal.load")

    let news: NewsClient
    let clock: any Clock<Duration>
    let settings: Settings

    public init(news: NewsClient, clock: any Clock<Duration>, settings: Settings = Settings()) {
        self.news = news
        self.clock = clock
        self.settings = settings
    }

    public func reduce(into state: inout JournalState, action: Action) -> Effect<Action> {
        let (news, clock, settings) = (news, clock, settings)
        switch action {
        case .start:
            return .merge(
                .send(.refresh), .timer(every: settings.refreshInterval, clock: clock) { .refresh })
        case .refresh:
            state.isLoading = true
            return .run { send in
                do {
                    let ids = try await withDeadline(settings.requestTimeout, on: clock) {
                        try await news.newStoryIDs()
                    }
                    send(.listed(Array(ids.prefix(max(0, settings.maxStories)))))
                } catch is DeadlinePassed {
                    send(.listFailed(.addressUnreachable("no answer within \(settings.requestTimeout)")))
                } catch {
                    send(.listFailed(NewsError(error)))
                }
            }
            .cancellable(id: Self.load)
        case .listed(let ids):
            state.listed = ids
            return Effect.flatMap(ids, maxInFlight: settings.maxInFlight, finished: .loadFinished) { id in
                do {
                    return .arrived(
                        try await withDeadline(settings.requestTimeout, on: clock) { try await news.story(id) })
                } catch {
                    return .dropped(id: id)  // the seeds' `catch { Empty() }`: the others are shown
                }
            }
            .cancellable(id: Self.load)
        case .listFailed(let error):
            state.isLoading = false
            state.notice = error.notice
        case .arrived(let arrived):
            // Any source's story gets the owner's rules (a hostile `--news-url` included).
            guard state.listed.contains(arrived.id), let story = arrived.asShown() else { break }
            state.stories = (state.stories.filter { $0.id != story.id } + [story]).sorted(by: JournalStory.isNewer)
            state.notice = nil
        case .dropped:
            break
        case .loadFinished:
            let listed = Set(state.listed)
            state.stories = state.stories.filter { listed.contains($0.id) }
            state.isLoading = false
            state.hasLoaded = true
            state.notice = nil
        }
        return .none
    }
}
