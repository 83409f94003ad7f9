import Hummingbird

/// The response every event stream is sent as.
enum EventStreamResponse {
    static func make(_ connection: EventStreamConnection) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-cache, no-transform",
            .xAccelBuffering: "no",
            .vary: "Accept-Encoding",
        ]
        if connection.compressed { headers[.contentEncoding] = "gzip" }
        return Response(
            status: .ok,
            headers: headers,
            body: ResponseBody { writer in
                try await connection.run(writer: &writer)
            }
        )
    }
}
