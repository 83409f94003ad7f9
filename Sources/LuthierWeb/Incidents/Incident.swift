import Foundation
import Hummingbird
import LuthierFeatures
import ServerMachinery

/// A request the shop failed, kept with the steps its session took before it: what the admin
/// reads on `/admin/incidents`, downloads as a trace, and replays.
///
/// It names no session and holds no key: the route is its pattern (`/orders/{number}`), never the
/// path, and the trace is redacted as `/inspect/trace` is (`SessionTrace`).
struct Incident: Sendable, Identifiable {
    /// What went wrong, as the request's answer said it.
    struct Failure: Sendable, Equatable {
        let method: String
        /// The route's pattern, or "(no route)".
        let route: String
        let status: Int
        /// The sentence the customer was answered, or the status's phrase.
        let sentence: String
    }

    /// 16 hex digits, random: the address of its page and the word in the log line that told of it.
    let id: String
    /// When it first happened, on the wall clock.
    let at: Date
    let failure: Failure
    /// The session's trace as JSON (`SessionTrace.json()`): what `luthier replay` reads.
    let trace: Data
    /// The steps in it, and those the session took before them that its recorder no longer kept.
    let steps: Int
    let dropped: Int
    /// Times the same failure came again with no new step in between (a customer trying again,
    /// a store that stays down): counted here rather than kept again.
    var repeats = 0
    /// Which recorder, and how many steps it had recorded: a failure with the same pair is a repeat.
    let source: ObjectIdentifier
    let recordedSteps: Int

    /// The failure an answer tells of, or nil when it is no incident: a refusal of the request
    /// itself (a bad value, a stale page, a missing page) or load shed on purpose is the whole
    /// story, and is counted on `/metrics` instead.
    static func failure(answering error: any Error, request: Request, route: String?) -> Failure? {
        let status: Int
        let sentence: String
        switch error {
        case let error as UserFacingError:
            guard error.kind == .failure else { return nil }
            status = Int(error.status.code)
            sentence = error.message
        case let error as HTTPError:
            guard error.status.code >= 500 else { return nil }
            status = Int(error.status.code)
            sentence = error.status.reasonPhrase
        default:
            // What `ErrorResponseMiddleware` answers for a failure nobody expected; the error's own
            // text may quote a value, so only its type is told.
            status = 500
            sentence = "An unexpected \(type(of: error)) was thrown."
        }
        return Failure(request, route: route, status: status, sentence: sentence)
    }

    /// The failure a response tells of, when a handler answered a 5xx itself rather than throwing.
    static func failure(answered response: Response, request: Request, route: String?) -> Failure? {
        guard response.status.code >= 500 else { return nil }
        return Failure(request, route: route, status: Int(response.status.code), sentence: response.status.reasonPhrase)
    }
}

extension Incident.Failure {
    /// `request`'s failure: its method and its route's pattern, with what it was answered.
    init(_ request: Request, route: String?, status: Int, sentence: String) {
        self.init(
            method: String(request.method.rawValue.prefix(16)), route: route ?? "(no route)", status: status,
            sentence: sentence)
    }
}
