import Hummingbird
import NIOCore

/// The answer every event stream is sent as: its head, from the route, and its body, from the
/// connection's ``EventStreamChannelHandler``.
enum EventStreamResponse {
    /// Hands `connection` to the connection's handler and answers with the stream's head.
    static func make(_ connection: EventStreamConnection, on channel: any Channel) async throws -> Response {
        var headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-cache, no-transform",
            .xAccelBuffering: "no",
            .vary: "Accept-Encoding",
        ]
        if connection.compressed { headers[.contentEncoding] = "gzip" }
        try await EventStreamChannelHandler.handOver(connection, on: channel)
        return Response(status: .ok, headers: headers, body: ResponseBody())
    }
}
