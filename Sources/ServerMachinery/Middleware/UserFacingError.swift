import HTTPTypes

/// A refusal the customer should read: a status and a sentence that says what was wrong and what
/// would be accepted. Never carries internals (paths, stack traces, type names).
public struct UserFacingError: Error, Sendable, Equatable {
    /// Whose doing a refusal is, which decides whether an operator is told of it.
    public enum Kind: Sendable, Equatable {
        /// The request asked for something the server does not do (a bad value, a stale page):
        /// the answer is the whole story.
        case refusal
        /// The server sheds load on purpose (full, too many streams): counted, not investigated.
        case overload
        /// The server could not do what it should have (its store failed, a save kept losing):
        /// an incident, kept with what led to it.
        case failure
    }

    public var status: HTTPResponse.Status
    public var message: String
    /// Seconds after which trying again may work (503).
    public var retryAfter: Int?
    public var kind: Kind

    /// - Parameter kind: by default a failure for a 5xx status and a refusal otherwise.
    public init(_ status: HTTPResponse.Status, _ message: String, retryAfter: Int? = nil, kind: Kind? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
        self.kind = kind ?? (status.code >= 500 ? .failure : .refusal)
    }
}
