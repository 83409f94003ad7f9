import Foundation
import LuthierDomain

/// What the journal panel shows (the kiosk's and `/journal`), derived from `JournalState`.
public struct JournalOutput: Hashable, Sendable {
    public var stories: [JournalStoryRow]
    public var notice: String?
    /// "No story yet." once a load has found none; "Loading the journal…" before the first.
    public var emptyText: String?

    public init(state: JournalState) {
        stories = state.stories.map(JournalStoryRow.init)
        notice = state.notice
        emptyText =
            state.stories.isEmpty
            ? (state.hasLoaded ? "No story in the journal yet." : state.notice == nil ? "Loading the journal…" : nil)
            : nil
    }
}

/// One story as the panel lists it.
public struct JournalStoryRow: Hashable, Sendable {
    public var title: String
    public var url: String?
    /// "25 Nov 2026, 00:33 UTC · workshop".
    public var byline: String

    init(_ story: JournalStory) {
        title = story.title
        url = story.url
        byline = "\(CheckoutOutput.format(story.time)) · \(story.by)"
    }
}
