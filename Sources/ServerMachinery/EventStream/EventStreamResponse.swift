import Hummingbird
import NIOCore

/// The answer every event stream is sent as: its head, from the route, and its body, from the
/// connection's ``EventStreamChannelHandler``.
package enum EventStreamResponse {
    /// Hands `connection` to the connection's handler and answers with the stream's head; a `HEAD`
    /// request gets the head alone, and opens no stream.
    package static func make(_ connection: EventStreamConnection, for request: Request, on channel: any Channel)
        async throws
        -> Response
    {
        try await make(EventStreamBundle(connection), for: request, on: channel)
    }

    /// As `make(_:for:on:)`, for one stream or a bundle of several.
    package static func make(_ bundle: EventStreamBundle, for request: Request, on channel: any Channel) async throws
        -> Response
    {
        var headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-cache, no-transform",
            .xAccelBuffering: "no",
            .vary: "Accept-Encoding",
        ]
        if bundle.compressed { headers[.contentEncoding] = "gzip" }
        do {
            guard request.method != .head else {
                bundle.unused()
                return Response(status: .ok, headers: headers, body: ResponseBody())
            }
            try await EventStreamChannelHandler.handOver(bundle, on: channel)
        } catch {
            bundle.unused()
            throw error
        }
        return Response(status: .ok, headers: headers, body: ResponseBody())
    }
}
