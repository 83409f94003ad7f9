import Foundation

/// Why a news request failed: the seeds' two cases.
public enum NewsError: Error, Hashable, Sendable {
    /// Nothing answered at the address (refused, reset, timed out).
    case addressUnreachable(String)
    /// Something answered, but not with what the API promises (a status, garbage, not a story).
    case invalidResponse

    /// What a reader of the journal is told, calmly: the list stays as it was.
    public var notice: String {
        switch self {
        case .addressUnreachable:
            "The workshop journal cannot be reached just now; it will be asked again shortly."
        case .invalidResponse:
            "The workshop journal answered with something unreadable; it will be asked again shortly."
        }
    }
}

extension NewsError {
    /// Any error as one of the two cases: a `NewsError` as it is, anything else (a client that
    /// broke its promise) as an unreadable answer.
    public init(_ error: any Error) {
        self = (error as? NewsError) ?? .invalidResponse
    }
}
