import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The guided build (`/guide`): one question a step, a form per step that works without
/// JavaScript (post, redirect, get) and live with it (each answer posted as it is chosen, the page
/// patched from the session's event stream).
struct GuideController: Sendable {
    /// Where the review's finish takes the guitar.
    enum Destination: String, CaseIterable, Sendable {
        case builder, checkout
    }

    let sessions: SessionResponses
    let renderer: PageRenderer
    let forms: FormReader

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/guide": page],
            post: [
                "/guide/answer": answer, "/guide/next": next, "/guide/back": back, "/guide/restart": restart,
                "/guide/finish": finish,
            ])
    }

    /// What a customer who has not begun sees: the first step, nothing chosen.
    static let newGuide = GuideOutput(state: GuideState())

    /// `GET /guide`: the step the session's guide is at (the first for a new one).
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await sessions.page(request, context, drawnFromBuildAndCart: "guide") { session in
            let shown = session.shown
            let page = GuidePage(cart: shown.cart, guide: shown.build.guide ?? Self.newGuide)
            return renderer.page(template: "guide", key: page.key) { page }
        }
    }

    /// `POST /guide/answer` with the step's one field (`shape=longV` on the Shape step).
    @Sendable func answer(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let change = try await self.change(of: request)
        guard let change else {
            throw UserFacingError(.unprocessableContent, "An answer needs the step's field, such as shape=longV.")
        }
        try await context.session.acting { session in try await Self.apply([.answer(change)], to: session) }
        return sessions.done(request, redirect: "/guide")
    }

    /// `POST /guide/next`, with the step's field if it comes with an answer (the form without
    /// JavaScript sends the chosen option with Next).
    @Sendable func next(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let change = try await self.change(of: request)
        try await context.session.acting { session in
            try await Self.apply((change.map { [.answer($0)] } ?? []) + [.next], to: session)
        }
        return sessions.done(request, redirect: "/guide")
    }

    /// `POST /guide/back`, keeping an answer sent with it, as every answer is kept.
    @Sendable func back(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let change = try await self.change(of: request)
        try await context.session.acting { session in
            try await Self.apply((change.map { [.answer($0)] } ?? []) + [.back], to: session)
        }
        return sessions.done(request, redirect: "/guide")
    }

    /// `POST /guide/restart`: every answer forgotten, back to the first step.
    @Sendable func restart(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Start the guide again")
        try await context.session.acting { session in try await Self.apply([.restart], to: session) }
        return sessions.done(request, redirect: "/guide")
    }

    /// `POST /guide/finish` with `then` = builder | checkout, from the review: the builder takes
    /// the guide's guitar, and the customer goes on to the builder or straight to its checkout.
    @Sendable func finish(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let destination = try await forms.singleOption("then", of: request, as: Destination.self)
        let session = try await context.session.acting { session in try await Self.apply([.finish], to: session) }
        guard destination == .checkout else { return sessions.done(request, redirect: "/") }
        // As the builder's checkout button does: the workshop asked outside the session's turn.
        try await CheckoutController.startCheckout(of: session, in: context.session) { $0.requestCheckout() }
        return sessions.done(request, redirect: "/checkout")
    }

    /// The guitar field a post carries, if any: at most one of shape, color, body, fretboard, with
    /// a value it allows (`422` naming the field and the values otherwise).
    private func change(of request: Request) async throws -> GuitarChange? {
        let fields = try await forms.fields(of: request)
        let change: GuitarChange
        do {
            change = try GuitarChange(fields: fields)
        } catch {
            throw UserFacingError(.unprocessableContent, error.message)
        }
        if fields.count > 1 {
            throw UserFacingError(
                .unprocessableContent,
                "A guide step takes one field (shape, color, body or fretboard); \(fields.count) were sent.")
        }
        return change.isEmpty ? nil : change
    }

    /// Applies `actions` in the session's turn, all or none: each is checked against the guide as
    /// the ones before it leave it, and the first refused one answers `409` with its sentence
    /// before anything changes.
    static func apply(_ actions: [GuideAction], to session: Session) async throws {
        var guide = session.build.latestState.guide ?? GuideState()
        for action in actions {
            if let refusal = guide.refusal(action) { throw UserFacingError(.conflict, refusal.message) }
            guide = GuideState.reduce(guide, action)
        }
        for action in actions { await session.build.send(.guide(action)) }
    }
}
