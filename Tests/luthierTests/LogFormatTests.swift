import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `luthier --log-format json`: a whole run's log, from start to a graceful stop, is one JSON
/// object per line, and carries no cookie, session id, order key or admin token, even where a
/// request put one in its address.
@Suite("Process: the JSON log")
struct LogFormatTests {
    static let adminToken = "process-test-admin-token-of-forty-characters"

    @Test("every line of a run's log is a JSON record, and none carries a secret")
    func aWholeRunLogsNoSecret() async throws {
        try await withShop { bench, client in
            let tokenFile = bench.directory.appendingPathComponent("admin-token")
            try Data((Self.adminToken + "\n").utf8).write(to: tokenFile)
            let server = try await bench.startServer(arguments: [
                "--log-format", "json", "--admin-token-file", tokenFile.path,
            ])
            let customer = Customer(client: client, server: server.baseURL)
            let cookie = try await customer.checkedOut(GuitarChoice(color: "sky"))
            let ordered = try await customer.order(cookie: cookie)
            #expect(ordered.status == 204, "\(ordered)")
            let checkout = try await client.get(server.url("/checkout"), cookie: cookie)
            let link = try #require(checkout.text.firstMatch(of: /\/orders\/([0-9A-Z-]+)\?key=([A-Za-z0-9_-]+)/))
            let (number, key) = (String(link.1), String(link.2))
            #expect(try await client.get(server.url("/orders/\(number)?key=\(key)")).status == 200)
            // Secrets where they do not belong: a wrong key, the admin token in the address.
            #expect(try await client.get(server.url("/orders/\(number)?key=\(key)x")).status == 404)
            #expect(try await client.get(server.url("/admin/analytics?token=\(Self.adminToken)")).status == 400)
            // The admin's actions, each logged with what it changed.
            let bearer = [("Authorization", "Bearer \(Self.adminToken)")]
            let restocked = try await client.post(
                server.url("/admin/stock"), form: "wood=body/koa&change=2&note=Delivery", cookie: nil, headers: bearer)
            #expect([200, 303].contains(restocked.status), "\(restocked)")  // 303, or its page when followed
            let cancelled = try await client.post(
                server.url("/admin/orders/\(number)/cancel"), form: "note=Customer+called", cookie: nil, headers: bearer
            )
            #expect([200, 303].contains(cancelled.status), "\(cancelled)")

            server.send(SIGTERM)
            let exit = try await server.waitForExit(within: .seconds(10))
            #expect(exit == .init(code: 0, bySignal: false), "\(exit)\n\(bench.outputs)")
            let log = server.output
            let lines = log.split(separator: "\n")
            #expect(lines.count >= 8, "\(log)")
            for line in lines {
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
                #expect(object?["time"] != nil && object?["level"] != nil && object?["message"] != nil, "\(line)")
            }
            #expect(log.contains("Luthier is serving on http://127.0.0.1:"))
            #expect(log.contains("GET /orders/{number} 200"))
            for secret in [cookie, key, Self.adminToken] {
                #expect(!log.contains(secret), "the log carries a secret: \(log)")
            }
            // An order's address is logged as its route; only the admin's action names the order it changed.
            let naming = lines.filter { $0.contains(number) }
            #expect(naming.count == 1 && naming.allSatisfy { $0.contains("Admin cancelled an order") }, "\(naming)")
            #expect(log.contains("Admin adjusted stock"))
        }
    }
}
