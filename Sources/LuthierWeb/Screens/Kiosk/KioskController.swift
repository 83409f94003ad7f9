import Hummingbird
import LuthierFeatures
import ServerMachinery

/// The kiosk: a full-screen page for the shop's big screen, and its event stream. It needs no
/// session (it never touches one), so a screen left open for days costs one stream and nothing
/// else.
struct KioskController: Sendable {
    let showroom: Showroom
    let hub: EventStreamHub
    let renderer: PageRenderer
    let responses: ResponseFactory
    /// Names the client, for the streams it may hold.
    let origin: RequestOrigin

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/kiosk": page, "/kiosk/events": events])
    }

    /// `GET /kiosk`: rendered from the feed's current output, the same partials as the stream.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let version = showroom.kioskFragments.version
        let page = KioskPage(output: showroom.feed.currentOutput, journal: showroom.journalPanel)
        return responses.page(renderer.page(template: "kiosk", key: page) { page }, version: version, for: request)
    }

    /// `GET /kiosk/events`: every kiosk change, conflated; a randomised `retry:`.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let connection: EventStreamConnection
        do {
            connection = try eventStream(request, context: context)
        } catch {
            return responses.error(error, for: request)
        }
        return try await EventStreamResponse.make(connection, for: request, on: context.channel)
    }

    /// The kiosk's event stream, for `GET /kiosk/events` and for a bundle (`GET /streams`) that
    /// follows it among others.
    func eventStream(
        _ request: Request, context: LuthierRequestContext
    ) throws(UserFacingError) -> EventStreamConnection {
        let client = origin.clientAddress(of: request, channel: context.channel)
        let reservation = try hub.admit(kind: .kiosk, client: client)
        return EventStreamConnection(
            fragments: showroom.kioskFragments,
            hub: hub,
            reconnectDelayMilliseconds: hub.reconnectDelayMilliseconds
                + Int.random(in: 0...hub.reconnectDelayMilliseconds),
            start: .of(request, in: showroom.kioskFragments),
            kind: .kiosk,
            client: client, reservation: reservation, compressed: ResponseFactory.acceptsGzip(request)
        )
    }
}
