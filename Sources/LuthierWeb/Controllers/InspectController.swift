import Hummingbird
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

    var endpoints: RouteCollection<LuthierRequestContext> {
        let routes = RouteCollection(context: LuthierRequestContext.self)
        routes.get("/inspect", use: page)
        routes.get("/inspect/events", use: events)
        return routes
    }

    /// `GET /inspect[?window=10|60|300]`: the diagram as it is now.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let window = try Self.window(of: request)
        guard let session = try await context.session.existing(), let recorder = session.shop.taps else {
            return responses.page(renderer.render(InspectPage(window: window, diagram: nil), template: "inspect"))
        }
        recorder.lease(for: Self.snapshotLease)
        let page = InspectPage(window: window, diagram: diagram(recorder, window: window))
        return responses.page(renderer.render(page, template: "inspect"))
    }

    /// `GET /inspect/events[?window=…]`: the diagram redrawn as the session's streams move; the
    /// session records while it is open.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let window = try Self.window(of: request)
        guard let session = try await context.session.existing(adopting: true), let recorder = session.shop.taps
        else {
            throw UserFacingError(.forbidden, "No live session: open / first; the inspector follows that session.")
        }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        if let refusal = hub.refusal(client: client, sessionStreams: session.openStreamCount) { throw refusal }
        let stopWatching = recorder.watch()
        let fragments = FragmentStore(initial: [diagram(recorder, window: window)])
        let clock = clock
        // The inspector's Timer.publish: a redraw every interval while the window shows anything.
        let redrawing = Task { [self] in
            var drawnAt = recorder.recorded
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: Self.redrawInterval)
                } catch {
                    return
                }
                let recorded = recorder.recorded
                let stale = MarbleDiagram(events: recorder.events, window: .seconds(window), now: recorder.now)
                guard recorded != drawnAt || !stale.visible.isEmpty else { continue }
                drawnAt = recorded
                fragments.publish([diagram(recorder, window: window)])
            }
        }
        let connection = EventStreamConnection(
            fragments: fragments, hub: hub, reconnectDelayMilliseconds: reconnectDelayMilliseconds,
            peerClosed: await PeerCloseHandler.peerClosed(on: context.channel), start: .fresh, client: client,
            opened: { session.streamOpened() },
            closed: {
                session.streamClosed()
                stopWatching()
                redrawing.cancel()
                fragments.finish()
            })
        return EventStreamResponse.make(connection)
    }

    private func diagram(_ recorder: TapRecorder, window: Int) -> Fragment {
        let diagram = MarbleDiagram(events: recorder.events, window: .seconds(window), now: recorder.now)
        return Fragment(target: Self.target, html: renderer.render(diagram.view, template: "fragments/inspector-lanes"))
    }

    private static func window(of request: Request) throws(UserFacingError) -> Int {
        guard let value = request.uri.queryParameters.get("window") else { return defaultWindow }
        guard let seconds = Int(value), windows.contains(seconds) else {
            throw UserFacingError(.unprocessableContent, "window must be 10, 60 or 300 (seconds).")
        }
        return seconds
    }
}

/// What the inspector template shows (stored properties only: the templates read by reflection).
struct InspectPage: Sendable {
    struct WindowLink: Sendable {
        let seconds: Int
        let label: String
        let isCurrent: Bool
    }

    let hasSession: Bool
    /// The drawn lanes (the partial's output, already escaped).
    let lanes: String
    let eventsURL: String?
    let windows: [WindowLink]

    /// - Parameter diagram: nil when the visitor has no session yet.
    init(window: Int, diagram: Fragment?) {
        hasSession = diagram != nil
        lanes = diagram?.html ?? ""
        eventsURL = diagram == nil ? nil : "/inspect/events?window=\(window)"
        windows = InspectController.windows.map { seconds in
            WindowLink(
                seconds: seconds, label: seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min",
                isCurrent: seconds == window)
        }
    }
}
