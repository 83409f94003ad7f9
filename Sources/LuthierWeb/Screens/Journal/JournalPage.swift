/// What the journal template shows.
struct JournalPage: Hashable, Sendable {
    /// The journal panel's HTML as the kiosk's fragments hold it.
    let journal: String
}
