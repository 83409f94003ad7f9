import AsyncHTTPClient

/// Runs `body` with a fresh HTTP client, shut down after it whether it threw or not (a client
/// left running traps when it is released).
func withHTTPClient(_ body: (HTTPClient) async throws -> Void) async throws {
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        try await body(client)
    } catch {
        try await client.shutdown()
        throw error
    }
    try await client.shutdown()
}
