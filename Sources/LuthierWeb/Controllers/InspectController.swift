import Foundation
import Hummingbird
import LuthierDomain
import LuthierFeatures

/// The stream inspector (`/inspect`): the visitor's own session's tapped streams as a live marble
/// diagram, drawn by the server and kept live over the page's own event stream: the product shows
/// itself with its own machinery. A session sees only its own streams (the same cookie).
struct InspectController: Sendable {
    let sessions: SessionResponses
    let renderer: PageRenderer
    let responses: ResponseFactory
    let hub: EventStreamHub
    /// Drives the redraws (the injected clock: tests move it by hand).
    let clock: any Clock<Duration>
    let reconnectDelayMilliseconds: Int
    /// Guards the shop's view, as it guards `/admin/analytics`.
    let admin: AdminController
    /// The shop's recorder (the kiosk feed, the workshop floor, the exchange rates).
    let shopTaps: TapRecorder?
    /// The connection counts, drawn on the shop's `shop.connections` lane when they change.
    let shopCounts: @Sendable () -> String
    /// The shop's discount codes: a trace carries those its session typed, so that the replay
    /// answers them the same way.
    let shopCodes: [DiscountCode]

    /// The windows the diagram can show, in seconds.
    static let windows = [10, 60, 300]
    static let defaultWindow = 60
    /// How often an open inspector is redrawn while anything is in its window (the marbles move
    /// left as time passes).
    static let redrawInterval = Duration.milliseconds(500)
    /// How long a page load keeps recording on without a stream (a page without JavaScript
    /// refreshes itself, renewing it).
    static let snapshotLease = Duration.seconds(60)
    static let target = "inspector-lanes"
    /// The shop's lane of connection counts.
    static let countsLane = "shop.connections"

    var endpoints: RouteCollection<LuthierRequestContext> {
        let routes = RouteCollection(context: LuthierRequestContext.self)
        routes.get("/inspect", use: page)
        routes.get("/inspect/events", use: events)
        routes.get("/inspect/trace", use: trace)
        // The shop's view lives under /admin, where the admin's sign-in cookie is sent.
        routes.get("/inspect/shop") { [responses] _, _ in responses.seeOther("/admin/inspect") }
        routes.get("/admin/inspect", use: shopPage)
        routes.get("/admin/inspect/events", use: shopEvents)
        return routes
    }

    /// `GET /inspect[?window=10|60|300][&lane=prefix]`: the session's diagram as it is now.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let view = try View(of: request, base: "/inspect")
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            return responses.page(
                renderer.render(InspectPage(view: view, diagram: nil, isShop: false), template: "inspect"))
        }
        recorder.lease(for: Self.snapshotLease)
        return responses.page(
            renderer.render(
                InspectPage(view: view, diagram: fragment(diagram(of: recorder, view)), isShop: false),
                template: "inspect"))
    }

    /// `GET /inspect/events[?window=…][&lane=…]`: the session's diagram redrawn as its streams move;
    /// the session records while it is open.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let view = try View(of: request, base: "/inspect")
        guard let session = try await context.session.existing(adopting: true), let recorder = session.shop.taps
        else {
            throw UserFacingError(.forbidden, "No live session: open / first; the inspector follows that session.")
        }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        if let refusal = hub.refusal(client: client, sessionStreams: session.openStreamCount) { throw refusal }
        return await stream(
            recorder, view, request: request, context: context, client: client,
            opened: { session.streamOpened() }, closed: { session.streamClosed() })
    }

    /// `GET /inspect/trace`: the session's trace, the steps its stores took while it was recorded
    /// (an inspector open), as JSON for `luthier replay trace.json`. It names no session and holds
    /// no key (see `SessionTrace`).
    @Sendable func trace(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            throw UserFacingError(
                .notFound, "This browser has no session yet: open / first; a trace holds that session's steps.")
        }
        let steps = recorder.traceSteps
        let trace = SessionTrace(steps: steps, dropped: recorder.recordedSteps - steps.count, shopCodes: shopCodes)
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"luthier-trace.json\"",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(data: try trace.json())))
    }

    /// `GET /admin/inspect`, for the admin: the shop's streams (the kiosk feed, the workshop floor
    /// and its timer).
    @Sendable func shopPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let view = try View(of: request, base: "/admin/inspect")
        guard let recorder = shopTaps else { throw AdminController.noSuchPage }
        recorder.lease(for: Self.snapshotLease)
        recorder.record(Self.countsLane, .value, shopCounts())
        return responses.page(
            renderer.render(
                InspectPage(view: view, diagram: fragment(diagram(of: recorder, view)), isShop: true),
                template: "inspect"))
    }

    /// `GET /admin/inspect/events`, for the admin: the shop's diagram, live.
    @Sendable func shopEvents(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let view = try View(of: request, base: "/admin/inspect")
        guard let recorder = shopTaps else { throw AdminController.noSuchPage }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        if let refusal = hub.refusal(client: client) { throw refusal }
        return await stream(recorder, view, request: request, context: context, client: client, counts: shopCounts)
    }

    /// The diagram of `recorder`, redrawn while the stream is open (the inspector's
    /// `Timer.publish`: every interval, while anything is in its window); the recorder records
    /// meanwhile.
    private func stream(
        _ recorder: TapRecorder, _ view: View, request: Request, context: LuthierRequestContext, client: String,
        counts: (@Sendable () -> String)? = nil,
        opened: @escaping @Sendable () -> Void = {}, closed: @escaping @Sendable () -> Void = {}
    ) async -> Response {
        let stopWatching = recorder.watch()
        let fragments = FragmentStore(initial: [fragment(diagram(of: recorder, view))])
        let clock = clock
        let redrawing = Task { [self] in
            var drawnAt = recorder.recorded
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
                let shown = diagram(of: recorder, view)
                guard recorded != drawnAt || !shown.visible.isEmpty else { continue }
                drawnAt = recorded
                fragments.publish([fragment(shown)])
            }
        }
        let connection = EventStreamConnection(
            fragments: fragments, hub: hub, reconnectDelayMilliseconds: reconnectDelayMilliseconds,
            peerClosed: await PeerCloseHandler.peerClosed(on: context.channel), start: .fresh, client: client,
            opened: opened,
            closed: {
                closed()
                stopWatching()
                redrawing.cancel()
                fragments.finish()
            })
        return EventStreamResponse.make(connection)
    }

    /// `recorder`'s events as `view` shows them, now.
    private func diagram(of recorder: TapRecorder, _ view: View) -> MarbleDiagram {
        MarbleDiagram(events: recorder.events, window: .seconds(view.window), now: recorder.now, lane: view.lane)
    }

    private func fragment(_ diagram: MarbleDiagram) -> Fragment {
        Fragment(target: Self.target, html: renderer.render(diagram.view, template: "fragments/inspector-lanes"))
    }

    /// What the visitor asked to see: a window, and lanes whose name starts with a prefix.
    struct View: Sendable {
        let window: Int
        let lane: String?
        /// The page's own address, for the links and the stream.
        let base: String

        init(of request: Request, base: String) throws(UserFacingError) {
            self.base = base
            if let value = request.uri.queryParameters.get("window") {
                guard let seconds = Int(value), InspectController.windows.contains(seconds) else {
                    throw UserFacingError(.unprocessableContent, "window must be 10, 60 or 300 (seconds).")
                }
                window = seconds
            } else {
                window = InspectController.defaultWindow
            }
            let lane = request.uri.queryParameters.get("lane").map { String($0) } ?? ""
            guard lane.utf8.count <= 40, lane.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." }) else {
                throw UserFacingError(
                    .unprocessableContent,
                    "lane must be the start of a lane's name: letters, digits and dots, at most 40.")
            }
            self.lane = lane.isEmpty ? nil : lane
        }

        /// The query that asks for this view, with another window if given.
        func query(window other: Int? = nil) -> String {
            "?window=\(other ?? window)" + (lane.map { "&lane=\($0)" } ?? "")
        }
    }
}

/// What the inspector template shows (stored properties only: the templates read by reflection).
struct InspectPage: Sendable {
    struct WindowLink: Sendable {
        let href: String
        let label: String
        let isCurrent: Bool
    }

    let heading: String
    let hasSession: Bool
    /// The drawn lanes (the partial's output, already escaped).
    let lanes: String
    let eventsURL: String?
    let windows: [WindowLink]
    let base: String
    let lane: String

    /// - Parameter diagram: nil when the visitor has no session yet.
    init(view: InspectController.View, diagram: Fragment?, isShop: Bool) {
        heading = isShop ? "The shop's streams" : "Your session's streams"
        hasSession = diagram != nil
        lanes = diagram?.html ?? ""
        eventsURL = diagram == nil ? nil : "\(view.base)/events\(view.query())"
        base = view.base
        lane = view.lane ?? ""
        windows = InspectController.windows.map { seconds in
            WindowLink(
                href: view.base + view.query(window: seconds),
                label: seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min", isCurrent: seconds == view.window)
        }
    }
}
