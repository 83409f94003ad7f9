import LuthierDomain

/// What the journal reader knows: the stories shown, newest first, and how the last load went.
public struct JournalState: Hashable, Sendable {
    /// Newest first (`JournalStory.isNewer`), at most the reader's maximum.
    public var stories: [JournalStory]
    /// A calm word when the last load of the list failed; the stories stay as they were.
    public var notice: String?
    /// A load is running.
    public var isLoading: Bool
    /// At least one load has finished (before that, "no story" means "not yet").
    public var hasLoaded: Bool
    /// The ids of the load in progress: a story arrives only if it is among them, and when the
    /// load finishes the stories no longer listed go.
    public var listed: [Int]

    public init(
        stories: [JournalStory] = [], notice: String? = nil, isLoading: Bool = false, hasLoaded: Bool = false,
        listed: [Int] = []
    ) {
        self.stories = stories
        self.notice = notice
        self.isLoading = isLoading
        self.hasLoaded = hasLoaded
        self.listed = listed
    }
}
