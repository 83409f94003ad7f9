/// How a change of a fragment is told to someone who cannot see it: the page script reads the
/// fragment's new text into a live region of this kind, once a fast run of changes has settled.
public enum FragmentAnnouncement: String, Sendable {
    /// Said when the reader is idle (`aria-live="polite"`): a price, a description.
    case polite
    /// A status message (`role="status"`): the checkout's state.
    case status
}
