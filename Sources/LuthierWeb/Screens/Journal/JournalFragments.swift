import LuthierFeatures

/// The journal panel, the one part of `/journal` that changes, and one more part of the kiosk.
enum JournalFragments {
    static let stories = "journal-stories"

    static let table = FragmentTable<JournalOutput>([
        .fragment(stories, "fragments/journal-stories", shows: \.stories, \.notice, \.emptyText)
    ])
}
