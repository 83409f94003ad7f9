import Hummingbird
import ServerMachinery
import Synchronization

/// The customer's session as one request sees it, put in the request context by
/// `SessionMiddleware`. Nothing is looked up until a handler asks, and a handler asks only once
/// it has read and validated its form, so a refused post never touches a session.
///
/// - `existing()` is the session the cookie names, if any (restored from the store if need be);
///   pages and streams read it and never make one.
/// - `acting(_:)` is the session a form post changes (the existing one or a new one), once the
///   change is made and saved (the one save policy: what the server says yes to is stored; the
///   middleware sets the cookie). If another instance saved the session meanwhile, the change is
///   made again on what it stored (`Session.act`).
public final class RequestSession: Sendable {
    private struct State {
        var resolved: Session?
        var isNew = false
        var acted = false
        /// Whether the post's change was saved with it (`act`): the middleware need not save.
        var saved = false
        /// Whether the cookie named an id an order replaced (a page was asked for with it).
        var cookieWasReplaced = false
        /// Whether this request's order gave the session its new id.
        var gaveNewID = false
    }

    private let registryIfAny: SessionRegistry?
    /// The session id the request's cookie carries, as sent.
    let cookie: String?
    private let state = Mutex(State())

    init(registry: SessionRegistry?, cookie: String?) {
        registryIfAny = registry
        self.cookie = cookie
    }

    /// For a context built without the middleware (a router test): any use is a server error.
    static var unavailable: RequestSession { RequestSession(registry: nil, cookie: nil) }

    /// The session the cookie names, if the server issued it.
    ///
    /// - Parameter adopting: whether an id the server issued but whose session never acted gets
    ///   its session now (a stream is a session's first act). A page does not adopt.
    func existing(adopting: Bool = false) async throws(UserFacingError) -> Session? {
        try await resolve(adopting: adopting, forPost: false)
    }

    /// The session the cookie names. An id an order replaced shows nothing of the session to a
    /// page or a stream, even in its grace: whoever else holds it (planted, or seen) must not
    /// follow the customer. Only a post (`forPost`) acts through it in its grace, the post the
    /// browser sent before the order's answer reached it; its answer carries no cookie.
    private func resolve(adopting: Bool, forPost: Bool) async throws(UserFacingError) -> Session? {
        if let resolved = state.withLock({ $0.resolved }) { return resolved }
        let registry = try registry()
        let found: Session?
        do {
            found = try await registry.session(forCookie: cookie, adopting: adopting)
        } catch .replaced where !adopting {
            // A page for a browser still holding an id an order replaced: the blank page, and a
            // fresh id for its cookie (`cookieWasReplaced`), so that its next post works.
            state.withLock { $0.cookieWasReplaced = true }
            return nil
        } catch {
            throw Self.refusal(error)
        }
        if let found, sentReplacedID(of: found), !forPost {
            // In its grace: the customer's new id is on its way to their browser in the order's
            // answer, so a page gets the blank one without a cookie, and a stream is refused.
            if adopting { throw Self.refusal(SessionRegistry.Failure.replaced) }
            return nil
        }
        state.withLock { if $0.resolved == nil { $0.resolved = found } }
        return found
    }

    /// The session a valid form post acts on (the existing one, or a new one: a 503 past the cap),
    /// once `change` is made there and saved.
    @discardableResult
    func acting(_ change: @escaping Session.Change) async throws -> Session {
        let session = try await acting()
        try await act(change)
        return session
    }

    /// Makes `change` on the session `acting()` resolved and saves it (`Session.act`). A refused
    /// change is thrown as it is; a save that fails is refused with a sentence (409 when another
    /// instance kept changing the session, 503 when the store failed).
    func act(_ change: @escaping Session.Change) async throws {
        let session = try await acting()
        do {
            try await session.act(change)
        } catch let failure as Session.SaveFailure {
            throw Self.refusal(failure)
        }
        state.withLock { $0.saved = true }
    }

    /// The session a valid form post acts on: the existing one, or a new one (a 503 past the cap).
    /// It is saved after the handler returns and before the answer, unless the handler saved its
    /// change with `act(_:)`.
    func acting() async throws(UserFacingError) -> Session {
        let session: Session
        if let existing = try await resolve(adopting: true, forPost: true) {
            session = existing
        } else {
            let registry = try registry()
            do {
                session = try registry.createSession()
            } catch {
                throw Self.refusal(error)
            }
            state.withLock {
                $0.resolved = session
                $0.isNew = true
            }
        }
        state.withLock { $0.acted = true }
        return session
    }

    /// Whether the request's cookie named an id an order replaced, found when a page looked for
    /// its session: the answer gives the browser a fresh id.
    var cookieWasReplaced: Bool { state.withLock { $0.cookieWasReplaced } }

    /// Whether this request's order gave the session its new id: its answer, and no other,
    /// carries it (`SessionMiddleware`). Another answer would hand it to whoever else holds the
    /// old id.
    var gaveNewID: Bool { state.withLock { $0.gaveNewID } }

    /// Notes that this request's order gave the session its new id.
    func noteNewID() { state.withLock { $0.gaveNewID = true } }

    /// Whether `session`'s id was replaced since the browser got the one this request sent: the
    /// request came late, in the old id's grace (or from whoever else holds that id). Read in the
    /// session's turn, it sees a replacement made by a request that went before it.
    func sentReplacedID(of session: Session) -> Bool {
        guard let cookie, !state.withLock({ $0.isNew }) else { return false }
        return cookie != session.id.cookieValue
    }

    /// The refusal of a request sent with an id an order replaced, where it may not act.
    static var replacedRefusal: UserFacingError { refusal(Session.SaveFailure.gone) }

    /// What the middleware acts on after the handler: the session resolved (if any), whether a
    /// post acted on it, and whether it was made for this request.
    var outcome: (session: Session?, acted: Bool, isNew: Bool, saved: Bool) {
        state.withLock { ($0.resolved, $0.acted, $0.isNew, $0.saved) }
    }

    /// A session made for a post that was then refused: nobody holds its cookie, so it goes.
    func discardIfNew() {
        let (session, isNew) = state.withLock { ($0.resolved, $0.isNew) }
        if isNew, let session { registryIfAny?.discard(session) }
    }

    private func registry() throws(UserFacingError) -> SessionRegistry {
        guard let registry = registryIfAny else {
            throw UserFacingError(.internalServerError, "Something went wrong; please try again.")
        }
        return registry
    }

    /// The answer to a save that failed.
    static func refusal(_ failure: Session.SaveFailure) -> UserFacingError {
        switch failure {
        case .contended:
            UserFacingError(
                .conflict, "Your session was being changed in another window at the same moment; please try again.",
                kind: .failure)
        case .gone:
            UserFacingError(
                .conflict, "This session was replaced after an order in another window; reload the page.",
                kind: .failure)
        case .unavailable:
            UserFacingError(.serviceUnavailable, "Your change could not be saved; please try again.", retryAfter: 5)
        }
    }

    private static func refusal(_ failure: SessionRegistry.Failure) -> UserFacingError {
        switch failure {
        case .full:
            UserFacingError(
                .serviceUnavailable, "The shop is full right now; please try again in a minute.", retryAfter: 60,
                kind: .overload)
        case .storeUnavailable:
            UserFacingError(
                .serviceUnavailable, "Your session cannot be read right now; please try again shortly.", retryAfter: 5)
        case .replaced:
            refusal(Session.SaveFailure.gone)
        }
    }
}
