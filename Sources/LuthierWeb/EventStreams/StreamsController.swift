import HTTPTypes
import Hummingbird
import NIOCore
import ServerMachinery

/// `GET /streams`: every event stream a browser follows, on one connection (an
/// ``EventStreamBundle``). Each `follow` parameter is a stream's own URL (`/events?since=…`,
/// `/kiosk/events`, `/orders/{number}/events?key=…`, `/inspect/events?window=…`), opened by the
/// same code as that URL, with the same checks and caps; the streams admitted before it in the
/// bundle count towards the caps as if open.
///
/// `GET /admin/streams` is the same under `/admin`, where the admin's sign-in cookie is sent: the
/// shop's inspector (`/admin/inspect/events`) is followed there.
///
/// A browser that follows another set of streams opens a new bundle naming the one it replaces
/// (`replaces=<id>`, the id its `event: bundle` gave): that one ends first.
///
/// A stream that cannot be opened does not refuse the others: the bundle says why in an
/// `event: refused` (its tag, the status and the sentence its own URL would have answered).
struct StreamsController: Sendable {
    let build: BuildController
    let kiosk: KioskController
    let orders: OrderController
    let inspect: InspectController
    let hub: EventStreamHub

    /// Streams one bundle may follow: a browser's every open page shares one, and six tabs of
    /// every kind is far below this.
    static let maxStreams = 16
    /// The longest `follow` address taken (a stream's path and its query).
    static let maxAddressBytes = 512

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/streams": streams, "/admin/streams": streams])
    }

    /// `GET /streams?follow=…&follow=…`: the streams named, tagged by their place in the list.
    @Sendable func streams(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let addresses = request.uri.queryParameters[values: "follow"]
        guard !addresses.isEmpty else {
            throw UserFacingError(
                .badRequest, "Name the streams to follow: follow=/events, follow=/kiosk/events and so on, one or more.")
        }
        guard addresses.count <= Self.maxStreams else {
            throw UserFacingError(
                .badRequest,
                "follow names \(addresses.count) streams; one connection follows at most \(Self.maxStreams).")
        }
        // The browser's bundle this one replaces ends first, so its streams are not counted twice.
        if let replaced = request.uri.queryParameters.get("replaces"), let closing = hub.replace(String(replaced)) {
            try? await closing.get()
        }
        var parts: [EventStreamBundle.Part] = []
        var refusals: [EventStreamBundle.Refusal] = []
        do {
            for (tag, address) in addresses.enumerated() {
                do {
                    let connection = try await open(String(address), for: request, context: context)
                    parts.append(.init(tag: tag, connection: connection))
                } catch let error as UserFacingError {
                    refusals.append(.init(tag: tag, error: error))
                }
            }
        } catch {
            // Not a refusal of one stream (the sessions cannot be read): what was opened stops.
            for part in parts { part.connection.unused() }
            throw error
        }
        let bundle = EventStreamBundle(
            tagged: parts, refusals: refusals, hub: hub,
            compressed: ResponseFactory.acceptsGzip(request), id: Self.newID())
        return try await EventStreamResponse.make(bundle, for: request, on: context.channel)
    }

    /// A bundle's id: 128 random bits in hexadecimal, so that no other client can end it.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - word.count) + word
        }.joined()
    }

    /// Opens the stream at `address` as its own URL would, for the client and session of `request`.
    private func open(
        _ address: String, for request: Request, context: LuthierRequestContext
    ) async throws -> EventStreamConnection {
        guard address.utf8.count <= Self.maxAddressBytes, address.hasPrefix("/") else {
            throw UserFacingError(
                .badRequest,
                "A follow address is a stream's path on this shop, starting with /, of at most "
                    + "\(Self.maxAddressBytes) bytes.")
        }
        // The stream's URL, with the bundle's headers: its own version is in its `since`, so the
        // bundle's `Last-Event-ID` (a browser's reconnect) is none of its business.
        var head = request.head
        head.path = address
        head.headerFields[.lastEventID] = nil
        let followed = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        let path = followed.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        switch Array(path) {
        case ["events"]:
            return try await build.eventStream(followed, context: context)
        case ["kiosk", "events"]:
            return try kiosk.eventStream(followed, context: context)
        case ["inspect", "events"]:
            return try await inspect.eventStream(followed, context: context)
        case ["admin", "inspect", "events"]:
            return try inspect.shopEventStream(followed, context: context)
        case let segments where segments.count == 3 && segments[0] == "orders" && segments[2] == "events":
            var orderContext = context
            orderContext.coreContext.parameters = .init()
            orderContext.coreContext.parameters.append(key: "number", value: segments[1])
            return try await orders.eventStream(followed, context: orderContext)
        default:
            throw UserFacingError(
                .notFound,
                "There is no event stream at that address; a bundle follows /events, /kiosk/events, "
                    + "/orders/{number}/events, /inspect/events and /admin/inspect/events.")
        }
    }
}
