import Testing

@testable import SQLMachinery

/// What an instance asks the PostgreSQL server to hold its connections to, in their start-up packet.
@Suite struct PostgresTimeoutsTests {
    static let timeouts = PostgresTimeouts(call: .milliseconds(4_500), leaderLease: .seconds(3))

    static func parameters(_ list: [(String, String)]) -> [String: String] {
        Dictionary(list, uniquingKeysWith: { _, last in last })
    }

    @Test func aPooledConnectionIsHeldToTheCallBoundAndTheLeaseForUnacknowledgedData() {
        let pool = Self.parameters(Self.timeouts.poolParameters)
        #expect(pool["statement_timeout"] == "4500")
        #expect(pool["lock_timeout"] == "4500")
        #expect(pool["idle_in_transaction_session_timeout"] == "4500")
        #expect(pool["tcp_user_timeout"] == "3000")
        #expect(pool["tcp_keepalives_idle"] == "1")
        #expect(pool["tcp_keepalives_count"] == "3")
        // A pooled connection may sit idle between requests for as long as it likes.
        #expect(pool["idle_session_timeout"] == nil)
    }

    @Test func theLeadersConnectionEndsWhenTheServerHearsNothingForTheLease() {
        let leader = Self.parameters(Self.timeouts.leaderParameters)
        #expect(leader["idle_session_timeout"] == "3000")
        #expect(leader["tcp_user_timeout"] == "3000")
        // Its queries are bounded by the leader itself (each within the call bound).
        #expect(leader["statement_timeout"] == nil)
    }

    @Test func theStartUpPacketNamesTheSchemaFirstThenTheBounds() throws {
        var location = try PostgresLocation(url: "postgres://shop@127.0.0.1/luthier?sslmode=disable")
        location.schema = "test_schema"
        let client = location.clientConfiguration(parameters: Self.timeouts.poolParameters)
        #expect(client.options.additionalStartupParameters.first?.0 == "search_path")
        #expect(client.options.additionalStartupParameters.first?.1 == "test_schema")
        #expect(Self.parameters(client.options.additionalStartupParameters)["lock_timeout"] == "4500")
        let leader = try location.connectionConfiguration(parameters: Self.timeouts.leaderParameters)
        #expect(Self.parameters(leader.options.additionalStartupParameters)["idle_session_timeout"] == "3000")
    }
}
