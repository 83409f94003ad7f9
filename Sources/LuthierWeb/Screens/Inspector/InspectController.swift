import Foundation
import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The stream inspector (`/inspect`): the visitor's own session's tapped streams as a live marble
/// diagram, drawn by the server and kept live over the page's own event stream: the product shows
/// itself with its own machinery. A session sees only its own streams (the same cookie).
struct InspectController: Sendable {
    let sessions: SessionResponses
    let renderer: PageRenderer
    let hub: EventStreamHub
    /// Drives the redraws (the injected clock: tests move it by hand).
    let clock: any Clock<Duration>
    /// Guards the shop's view, as it guards `/admin/analytics`.
    let admin: AdminController
    /// The shop's recorder (the kiosk feed, the workshop floor, the exchange rates).
    let shopTaps: TapRecorder?
    /// The connection counts, drawn on the shop's `shop.connections` lane when they change.
    let shopCounts: @Sendable () -> String
    /// The codes the shop offers now, for a trace to carry those its steps typed, so that the
    /// replay answers them the same way.
    let shopCodes: DiscountBook
    /// The live diagrams, one per session and view however many streams follow it.
    let feeds: InspectorFeeds
    let forms: FormReader
    /// Each session's trace as last encoded and compressed, per recorded step.
    let traces: TraceCache

    /// The windows the diagram can show, in seconds.
    static let windows = [10, 60, 300]
    static let defaultWindow = 60
    /// How often an open inspector looks whether its diagram moved: something recorded, or a
    /// marble gone out of its window. Only then is it drawn again (an idle inspector costs a
    /// look, not a drawing and a patch).
    static let redrawInterval = Duration.milliseconds(500)
    /// How long a page load keeps recording on without a stream (a page without JavaScript
    /// refreshes itself, renewing it).
    static let snapshotLease = Duration.seconds(60)
    static let target = "inspector-lanes"
    /// The shop's lane of connection counts.
    static let countsLane = "shop.connections"

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: [
                "/inspect": page, "/inspect/events": events, "/inspect/trace": trace, "/inspect/moment": momentPage,
                // The shop's view lives under /admin, where the admin's sign-in cookie is sent.
                "/inspect/shop": { [responses = sessions.responses] _, _ in responses.seeOther("/admin/inspect") },
                "/admin/inspect": shopPage, "/admin/inspect/events": shopEvents,
            ],
            post: ["/inspect/highlight": highlight])
    }

    /// `GET /inspect[?window=10|60|300][&lane=prefix]`: the session's diagram as it is now.
    ///
    /// With `moment=N` (the scrubber), the session as it was right after step N of its recording:
    /// each screen's state, and links to its pages drawn as they were.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let view = try View(of: request, base: "/inspect")
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            if view.moment != nil { throw Self.noRecording }
            return sessions.responses.page(
                renderer.render(InspectPage(view: view, diagram: nil, isShop: false), template: "inspect"), for: request
            )
        }
        recorder.lease(for: Self.snapshotLease)
        let steps = recorder.traceSteps
        let moment = try view.moment.map { try Self.moment($0, of: session, in: steps) }
        return sessions.responses.page(
            renderer.render(
                InspectPage(
                    view: view, diagram: fragment(diagram(of: recorder, view).view), isShop: false,
                    scrubber: Scrubber(steps: steps, view: view), moment: moment.map(MomentView.init),
                    highlighting: session.highlightsUpdates,
                    cause: view.cause.map {
                        CauseView(cause: $0, recorder: recorder, clear: view.base + view.query(cause: 0))
                    }),
                template: "inspect"), for: request)
    }

    /// `GET /inspect/events[?window=…][&lane=…]`: the session's diagram redrawn as its streams move;
    /// the session records while it is open.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await EventStreamResponse.make(eventStream(request, context: context), for: request, on: context.channel)
    }

    /// The session's inspector stream, for `GET /inspect/events` and for a bundle (`GET /streams`)
    /// that follows it among others.
    func eventStream(
        _ request: Request, context: LuthierRequestContext
    ) async throws -> EventStreamConnection {
        let view = try View(of: request, base: "/inspect")
        guard let session = try await context.session.existing(adopting: true), let recorder = session.shop.taps
        else {
            throw UserFacingError(.forbidden, "No live session: open / first; the inspector follows that session.")
        }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        let reservation = try hub.admit(kind: .inspector, client: client, session: session.streamCapKey)
        return stream(
            recorder, view, request: request, client: client, reservation: reservation,
            opened: { session.streamOpened() }, closed: { session.streamClosed() })
    }

    /// `GET /admin/inspect`, for the admin: the shop's streams (the kiosk feed, the workshop floor
    /// and its timer).
    @Sendable func shopPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let view = try View(of: request, base: "/admin/inspect")
        guard let recorder = shopTaps else { throw AdminController.noSuchPage }
        recorder.lease(for: Self.snapshotLease)
        recorder.record(Self.countsLane, .value, shopCounts())
        return sessions.responses.page(
            renderer.render(
                InspectPage(view: view, diagram: fragment(diagram(of: recorder, view).view), isShop: true),
                template: "inspect"), for: request)
    }

    /// `GET /admin/inspect/events`, for the admin: the shop's diagram, live.
    @Sendable func shopEvents(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        return try await EventStreamResponse.make(
            adminsShopEventStream(request, context: context), for: request, on: context.channel)
    }

    /// The shop's inspector stream for a bundle (`GET /admin/streams`) that follows it among
    /// others: refused (`403`) unless the request is the admin's.
    func shopEventStream(
        _ request: Request, context: LuthierRequestContext
    ) throws -> EventStreamConnection {
        guard try admin.refusal(request, context: context) == nil else {
            throw UserFacingError(.forbidden, "The shop's inspector is the admin's: sign in at /admin/sign-in first.")
        }
        return try adminsShopEventStream(request, context: context)
    }

    /// The shop's inspector stream, for a request already known to be the admin's.
    private func adminsShopEventStream(
        _ request: Request, context: LuthierRequestContext
    ) throws -> EventStreamConnection {
        let view = try View(of: request, base: "/admin/inspect")
        guard let recorder = shopTaps else { throw AdminController.noSuchPage }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        let reservation = try hub.admit(kind: .inspector, client: client)
        return stream(recorder, view, request: request, client: client, reservation: reservation, counts: shopCounts)
    }

    /// The diagram of `recorder`, drawn again while any stream follows it whenever it moved (the
    /// inspector's `Timer.publish`, filtered): one diagram per session and view, however many
    /// streams follow it (`InspectorFeeds`). The recorder records while any is open.
    private func stream(
        _ recorder: TapRecorder, _ view: View, request: Request, client: String,
        reservation: EventStreamHub.Reservation, counts: (@Sendable () -> String)? = nil,
        opened: @escaping @Sendable () -> Void = {}, closed: @escaping @Sendable () -> Void = {}
    ) -> EventStreamConnection {
        let stopWatching = recorder.watch()
        let key = InspectorFeeds.Key(
            recorder: ObjectIdentifier(recorder), window: view.window, lane: view.lane, cause: view.cause)
        // The diagram the store starts with is the one the drawing's first edits apply to.
        var first: MarbleDiagram?
        let fragments = feeds.follow(
            key,
            initial: {
                let drawn = diagram(of: recorder, view)
                first = drawn
                return [fragment(drawn.view)]
            }
        ) { fragments in
            Task { [self, first] in await draw(recorder, view, from: first, into: fragments, counts: counts) }
        }
        let stop: @Sendable () -> Void = { [feeds] in
            stopWatching()
            feeds.leave(key)
        }
        return EventStreamConnection(
            fragments: fragments, hub: hub, start: .fresh,
            kind: .inspector, client: client, reservation: reservation,
            compressed: ResponseFactory.acceptsGzip(request),
            opened: opened,
            closed: {
                closed()
                stop()
            },
            unused: stop)
    }

    /// Draws `recorder`'s diagram into `fragments` whenever it moved, until cancelled: every
    /// `redrawInterval` it looks whether anything was recorded or a marble has left the window,
    /// and only then draws. (Drawing every interval while anything was in the window, two hundred
    /// idle streams of one client kept both cores busy.) A page that shows the diagram before is
    /// sent the marbles that came, changed and went, and the time, not the diagram: the page
    /// moves the marbles along itself.
    private func draw(
        _ recorder: TapRecorder, _ view: View, from first: MarbleDiagram?, into fragments: FragmentStore,
        counts: (@Sendable () -> String)?
    ) async {
        let window = Duration.seconds(view.window)
        var drawnAt = recorder.recorded
        let start = first ?? diagram(of: recorder, view)
        var drawn = start.view
        var leavesAt = start.visible.map(\.at).min().map { $0 + window }
        var counted: String?
        while !Task.isCancelled {
            if let counts {
                let now = counts()
                if now != counted { recorder.record(Self.countsLane, .value, now) }
                counted = now
            }
            do {
                try await clock.sleep(for: Self.redrawInterval)
            } catch {
                return
            }
            let recorded = recorder.recorded
            let aged = leavesAt.map { recorder.now >= $0 } ?? false
            guard recorded != drawnAt || aged else { continue }
            drawnAt = recorded
            let shown = diagram(of: recorder, view)
            leavesAt = shown.visible.map(\.at).min().map { $0 + window }
            feeds.countDrawing()
            let next = shown.view
            let edits = next.edits(
                from: drawn, marble: { renderer.render($0, template: "fragments/inspector-marble") },
                clock: { renderer.render($0, template: "fragments/inspector-clock") })
            fragments.publish([fragment(next, editsIfSmaller: edits)])
            drawn = next
        }
    }

    /// `recorder`'s events as `view` shows them, now.
    private func diagram(of recorder: TapRecorder, _ view: View) -> MarbleDiagram {
        MarbleDiagram(
            events: recorder.events, window: .seconds(view.window), now: recorder.now, lane: view.lane,
            selected: view.cause, address: { [view] in view.base + view.query(cause: $0) })
    }

    /// The diagram `view` draws, whole, and as `edits` for a page that shows the one before when
    /// they are smaller.
    private func fragment(_ view: MarbleDiagram.View, editsIfSmaller edits: [FragmentItem]? = nil) -> Fragment {
        Fragment(
            target: Self.target, html: renderer.render(view, template: "fragments/inspector-lanes"),
            editsIfSmaller: edits)
    }

    /// What the visitor asked to see: a window, lanes whose name starts with a prefix, and a moment.
    struct View: Sendable {
        let window: Int
        let lane: String?
        /// The step the scrubber picked, if any.
        let moment: Int?
        /// The input whose work is lit up (a marble selected), if any.
        let cause: Int?
        /// The page's own address, for the links and the stream.
        let base: String

        init(of request: Request, base: String) throws(UserFacingError) {
            self.base = base
            if let value = try request.queryValue("window") {
                guard let seconds = Int(value), InspectController.windows.contains(seconds) else {
                    throw UserFacingError(.unprocessableContent, "window must be 10, 60 or 300 (seconds).")
                }
                window = seconds
            } else {
                window = InspectController.defaultWindow
            }
            let lane = try request.queryValue("lane").map { String($0) } ?? ""
            guard lane.utf8.count <= 40, lane.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) else {
                throw UserFacingError(
                    .unprocessableContent,
                    "lane must be the start of a lane's name: letters, digits and dots, at most 40.")
            }
            self.lane = lane.isEmpty ? nil : lane
            moment = try Self.number(request, "moment", "a step number from the scrubber")
            cause = try Self.number(request, "cause", "a change's number from a marble")
        }

        /// The whole number from 1 in query `name`, if given; what it is (`meaning`) is said when
        /// it is not one.
        private static func number(
            _ request: Request, _ name: String, _ meaning: String
        ) throws(UserFacingError) -> Int? {
            guard let value = try request.queryValue(name) else { return nil }
            guard value.utf8.count <= 18, let number = Int(value), number > 0 else {
                throw UserFacingError(.unprocessableContent, "\(name) must be \(meaning): a whole number from 1.")
            }
            return number
        }

        /// The query that asks for this view, with another window if given, and the change lit up
        /// (`cause`: the one lit now unless another is given; 0 for none).
        func query(window other: Int? = nil, cause selected: Int? = nil) -> String {
            let lit = selected ?? cause ?? 0
            return "?window=\(other ?? window)" + (lane.map { "&lane=\($0)" } ?? "") + (lit > 0 ? "&cause=\(lit)" : "")
        }
    }
}
