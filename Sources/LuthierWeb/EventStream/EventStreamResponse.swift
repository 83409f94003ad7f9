import Hummingbird

/// The response every event stream is sent as.
enum EventStreamResponse {
    static func make(_ connection: EventStreamConnection) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8",
                .cacheControl: "no-cache, no-transform",
                .xAccelBuffering: "no",
            ],
            body: ResponseBody { writer in
                try await connection.run(writer: &writer)
            }
        )
    }
}
