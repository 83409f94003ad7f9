/// Why a story was refused, as a sentence naming the field.
public enum JournalRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The title is not one (`problem` says why, as `String.oneLineProblem` does).
    case title(problem: String)
    case url(String)

    public var description: String {
        switch self {
        case .title(let problem):
            "title: a story needs a title of 1–\(JournalEntry.longestTitle) characters on one line; \(problem)."
        case .url(let url):
            "url: '\(url.prefix(80))' is not an http or https address of at most \(JournalEntry.longestURL) characters."
        }
    }
}
