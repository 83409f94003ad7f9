import Foundation
import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The inspector's replay side: the session's trace to download (`luthier replay` reads it), and
/// the scrubber's moments, with the pages drawn as they were.
extension InspectController {
    /// `GET /inspect/trace`: the session's trace, the steps its stores took while it was recorded
    /// (an inspector open), as JSON for `luthier replay trace.json`. It names no session and holds
    /// no key (see `SessionTrace`).
    @Sendable func trace(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            throw Self.noRecording
        }
        // The shop's codes change rarely; a change is a new version too.
        let codes = shopCodes.current
        let version = recorder.recordedSteps &* 31 &+ codes.hashValue
        let encoded = try traces.trace(of: recorder, version: version) {
            let steps = recorder.traceSteps
            let trace = SessionTrace(steps: steps, dropped: recorder.recordedSteps - steps.count, shopCodes: codes)
            return ByteBuffer(data: try trace.json())
        }
        return sessions.responses.text(
            encoded.plain, compressed: encoded.gzip, type: "application/json",
            headers: [.contentDisposition: "attachment; filename=\"luthier-trace.json\""], for: request)
    }

    /// `GET /inspect/moment?moment=N&page=builder|cart|checkout`: that page as it was right after
    /// step N, drawn by the same templates from the states the recording holds; a picture (inert,
    /// with no live stream), with a way back to the inspector.
    @Sendable func momentPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let view = try View(of: request, base: "/inspect")
        guard let number = view.moment else {
            throw UserFacingError(
                .unprocessableContent, "moment is required: a step number from the inspector's scrubber.")
        }
        let page = try request.queryValue("page").map { String($0) } ?? ""
        guard let pageName = MomentView.pages[page] else {
            throw UserFacingError(.unprocessableContent, "page must be builder, cart or checkout.")
        }
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            throw Self.noRecording
        }
        let moment = try Self.moment(number, of: session, in: recorder.traceSteps)
        let output = moment.output
        let frozen = FrozenMoment(
            text: "Your \(pageName) as it was right after step \(number) (\(MomentView.describe(moment.step))). "
                + "A picture: nothing on it acts.",
            back: "/inspect?moment=\(number)")
        switch page {
        case "cart":
            let view = CartView(cart: output.cart, checkoutButton: output.build.checkoutButton)
            return sessions.responses.page(
                renderer.render(CartPage(cart: output.cart, view: view, frozen: frozen), template: "cart"), for: request
            )
        case "checkout":
            guard let checkout = output.checkout, let state = moment.checkout else {
                throw UserFacingError(
                    .unprocessableContent,
                    "There was no checkout right after step \(number): page must be builder or cart for it.")
            }
            let pictures = state.checkout.lines.map { Picture(image: GuitarArtwork(guitar: $0.guitar).image) }
            return sessions.responses.page(
                renderer.render(
                    CheckoutPage(cart: output.cart, output: checkout, pictures: pictures, frozen: frozen),
                    template: "checkout"), for: request)
        default:
            return sessions.responses.page(
                renderer.render(
                    BuilderPage(cart: output.cart, output: output.build, frozen: frozen), template: "builder"),
                for: request)
        }
    }

    static let noRecording = UserFacingError(
        .notFound, "This browser has no session yet: open / first; the inspector records that session's steps.")

    /// The session right after step `number`, or a refusal that says which steps are kept.
    static func moment(_ number: Int, of session: Session, in steps: [TraceStep]) throws(UserFacingError)
        -> SessionMoment
    {
        let current = (
            build: session.build.latestState, cart: session.cart.latestState,
            checkout: session.build.currentCheckout?.latestState
        )
        guard let moment = SessionMoment(after: number, in: steps, current: current) else {
            guard let first = steps.first?.number, let last = steps.last?.number else {
                throw UserFacingError(
                    .unprocessableContent,
                    "moment \(number) is not recorded: no step is recorded yet; change something while the inspector is open."
                )
            }
            throw UserFacingError(
                .unprocessableContent,
                "moment \(number) is not recorded: the recording keeps steps \(first) to \(last).")
        }
        return moment
    }
}
