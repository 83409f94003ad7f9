import HTTPTypes

/// A refusal the customer should read: a status and a sentence that says what was wrong and what
/// would be accepted. Never carries internals (paths, stack traces, type names).
public struct UserFacingError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var message: String
    /// Seconds after which trying again may work (503).
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }
}
