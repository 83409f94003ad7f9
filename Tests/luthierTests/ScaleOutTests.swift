import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several `luthier` processes on one PostgreSQL database, as behind a load balancer: what one
/// instance takes, the others show. Runs when `LUTHIER_TEST_POSTGRES_URL` names a server.
@Suite(
    "Process: instances sharing one PostgreSQL database",
    .enabled(if: PostgresDatabase.serverURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct ScaleOutTests {
    @Test func anOrderPlacedOnOneInstanceShowsOnTheOthersKioskAndAnAdminsCancelOnBoth() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        try await withWorkbench { bench in
            let first = try await bench.startServer(arguments: ["--database", database])
            let second = try await bench.startServer(arguments: ["--database", database])
            let client = ShopClient()
            do {
                let kiosk = try await EventStreamReader.open(second.url("/kiosk/events"), cookie: nil, on: client)
                // Its first state, before any order (the count is JSON inside the event's data).
                try await kiosk.waitUntilText("the second kiosk's first state") { $0.contains(#"today\">0"#) }

                let customer = Customer(client: client, server: first.baseURL)
                let cookie = try await customer.checkedOut(
                    GuitarChoice(shape: "longV", body: "mahogany", fretboard: "rosewood"))
                let ordered = try await customer.order(cookie: cookie)
                #expect(ordered.status == 204, "\(ordered)\n\(bench.outputs)")

                // Placed on the first instance, told by PostgreSQL to the second, shown on its kiosk.
                try await kiosk.waitUntilText("the order on the second instance's kiosk") {
                    $0.contains(#"today\">1"#)
                }
                let page = try await client.get(second.url("/kiosk"))
                #expect(page.text.contains(#"Wood selection <span class="kiosk-count">1"#))

                // The admin's command, a third process, cancels it: both kiosks show the change.
                let number = try #require(
                    try await client.get(first.url("/checkout"), cookie: cookie).text.firstMatch(
                        of: /LU-[0-9A-Z]{6}/
                    ).map { String($0.output) })
                let cancel = try AdminCommandTests.luthier(
                    ["orders", "cancel", number, "--note", "scale-out test"], database: database)
                #expect(cancel.status == 0, "\(cancel.output)\(cancel.error)")
                for instance in [first, second] {
                    try await waitUntil("the cancel on \(instance.baseURL)'s kiosk", limit: .seconds(20)) {
                        let page = try? await client.get(instance.url("/kiosk"))
                        return page?.text.contains(#"Wood selection <span class="kiosk-count">0"#) == true
                    }
                }
                kiosk.cancel()
            } catch {
                await client.shutdown()
                throw TestFailure("\(error)\n\(bench.outputs)")
            }
            await client.shutdown()
        }
    }

    /// A customer whose every request lands on the next of three instances (a round-robin
    /// balancer without sticky sessions): the page from the first, the stream on the second, each
    /// post on the next. The stream shows every change wherever it was posted, the cart holds
    /// every guitar added on any instance, and the order placed on one shows on the third's kiosk.
    @Test func aCustomerWhoseRequestsLandOnEveryInstanceInTurnSeesAndKeepsEveryChange() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        try await withWorkbench { bench in
            var instances: [LuthierProcess] = []
            for _ in 0..<3 { instances.append(try await bench.startServer(arguments: ["--database", database])) }
            let client = ShopClient()
            do {
                // The id the first issued is adopted by the second (one key for the database).
                let cookie = try await client.newSession(on: instances[0].baseURL)
                let stream = try await EventStreamReader.open(instances[1].url("/events"), cookie: cookie, on: client)
                let kiosk = try await EventStreamReader.open(instances[2].url("/kiosk/events"), cookie: nil, on: client)
                try await kiosk.waitUntilText("the kiosk's first state") { $0.contains(#"today\">0"#) }

                let posts: [(path: String, form: String)] = [
                    ("/build", "shape=longV"), ("/cart/items", ""), ("/build", "color=sky"), ("/cart/items", ""),
                    ("/build", "body=swampAsh"), ("/cart/items", ""),
                ]
                for (index, post) in posts.enumerated() {
                    let customer = Customer(client: client, server: instances[index % 3].baseURL)
                    try await customer.post(post.path, form: post.form, cookie: cookie)
                }
                // Posted on the third, shown on the second's stream.
                try await stream.waitUntilText("the last change on the second instance's stream") {
                    $0.contains("Swamp Ash")
                }
                for instance in instances {
                    let cart = try await client.get(instance.url("/cart"), cookie: cookie)
                    #expect(
                        cart.text.contains("3 guitars"), "the cart on \(instance.baseURL): \(cart.text.prefix(400))")
                }
                try await Customer(client: client, server: instances[0].baseURL).post("/cart/checkout", cookie: cookie)
                let ordered = try await Customer(client: client, server: instances[1].baseURL).order(cookie: cookie)
                #expect(ordered.status == 204, "\(ordered)")
                try await kiosk.waitUntilText("the order's three guitars on the third instance's kiosk") {
                    $0.contains(#"today\">3"#)
                }
                let orders = try PostgresShop(url: database).orders()
                #expect(orders.count == 1)
                #expect(orders.values.first?.lines.map(\.quantity).reduce(0, +) == 3)
                stream.cancel()
                kiosk.cancel()
            } catch {
                await client.shutdown()
                throw TestFailure("\(error)\n\(bench.outputs)")
            }
            await client.shutdown()
        }
    }

    /// Two instances on one database, each stage a second: the first started leads the floor.
    /// Killed with `SIGKILL` while an order is in the workshop, the other takes the lead and moves
    /// the order on to its end: every stage once, in order, none skipped or repeated.
    @Test func whenTheFloorsLeaderIsKilledTheOtherMovesTheStagesOnNoneSkippedOrRepeated() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        try await withWorkbench { bench in
            let pace = ["--database", database, "--workshop-pace", "1s"]
            let leader = try await bench.startServer(arguments: pace)
            let follower = try await bench.startServer(arguments: pace)
            let client = ShopClient()
            do {
                let shop = PostgresShop(url: database)
                let customer = Customer(client: client, server: follower.baseURL)
                let cookie = try await customer.checkedOut(
                    GuitarChoice(shape: "longV", body: "mahogany", fretboard: "rosewood"))
                #expect(try await customer.order(cookie: cookie).status == 204)
                let number = try #require(try shop.rows("SELECT number FROM orders").first?.first)
                let stages = {
                    try shop.rows("SELECT status FROM order_stages WHERE order_number = '\(number)' ORDER BY id").map {
                        $0[0]
                    }
                }
                try await waitUntil("the leader's first move", limit: .seconds(20)) { (try? stages().count) ?? 0 >= 2 }
                kill(leader.pid, SIGKILL)
                #expect(try await leader.waitForExit(within: .seconds(10)).bySignal)
                try await waitUntil("the order's last stage, moved by the other instance", limit: .seconds(30)) {
                    (try? stages().last).flatMap { $0 } == "readyForPickup"
                }
                #expect(
                    try stages() == ["woodSelection", "bodyShaping", "finishing", "setup", "readyForPickup"],
                    "\(bench.outputs)")
                #expect(follower.output.contains("This instance runs the workshop floor"), "\(follower.output)")
            } catch {
                await client.shutdown()
                throw TestFailure("\(error)\n\(bench.outputs)")
            }
            await client.shutdown()
        }
    }

    /// `kill -9` of one instance in a storm of orders: the other goes on serving. Every order the
    /// killed one confirmed is in the database once and shown to its session by the other (which
    /// loads the session from the database), and stock plus what the orders took is what there was.
    @Test func killNineOfOneInstanceDuringAStormLosesNothingAndItsSessionsContinueOnTheOther() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        try await withShop { bench, client in
            let doomed = try await bench.startServer(arguments: ["--database", database])
            let survivor = try await bench.startServer(arguments: ["--database", database])
            let shop = PostgresShop(url: database)
            // More of the plentiful woods, as in the SQLite storm; the scarce ones run out.
            _ = try shop.rows(
                "UPDATE wood_stock SET quantity = 500 WHERE wood IN ('mahogany', 'swampAsh', 'rosewood', 'birdseyeMaple')"
            )
            let initial = try shop.stock()
            #expect(initial.count == ShopDatabase.seededStock.count)

            let outcome = try await CrashRecoveryTests.storm(round: 1, server: doomed, client: client)
            let exit = try await doomed.waitForExit(within: .seconds(10))
            #expect(exit == .init(code: SIGKILL, bySignal: true), "\(exit)")
            #expect(outcome.reachedQuota, "never reached \(CrashRecoveryTests.killAfter) confirmed orders")
            #expect(outcome.unexpected.isEmpty, "\(outcome.unexpected.prefix(5))\n\(bench.outputs)")

            let stored = try shop.orders()
            #expect(ShopDatabase.violations(initial: initial, stock: try shop.stock(), orders: stored).isEmpty)
            #expect(try await client.get(survivor.url("/healthz")).status == 200)
            var found = 0
            for order in outcome.confirmed {
                let page = try await client.get(survivor.url("/checkout"), cookie: order.cookie)
                guard let number = page.orderNumber, let row = stored[number] else {
                    Issue.record("a confirmed order is not shown by the other instance or not stored: \(page)")
                    continue
                }
                #expect(row.lines.sorted() == order.lines.sorted(), "\(number)")
                found += 1
            }
            #expect(found == outcome.confirmed.count)
            #expect(stored.count >= outcome.confirmed.count)
            print(
                "[scale-out] kill -9 of one of two instances: \(outcome.confirmed.count) confirmed, "
                    + "\(outcome.refused) refused, \(stored.count) stored, all \(found) shown by the other instance")
        }
    }

    /// The same storm through nginx in front of three instances with a plain round-robin upstream:
    /// each customer's requests land on every instance in turn, and one instance gets `kill -9`
    /// at the quota. Every confirmed order is stored once and shown through nginx by whichever
    /// instance serves its session now; the wood adds up; and new customers go on ordering through
    /// nginx with one instance dead.
    @Test(.enabled(if: NginxBalancer.binary != nil, "needs nginx"))
    func killNineOfOneInstanceBehindNginxDuringAStormLosesNothingAndTheShopGoesOn() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        try await withShop { bench, client in
            let instances = [
                try await bench.startServer(arguments: ["--database", database]),
                try await bench.startServer(arguments: ["--database", database]),
                try await bench.startServer(arguments: ["--database", database]),
            ]
            let nginx = try await NginxBalancer.start(
                over: instances, in: bench.directory.appendingPathComponent("nginx"), client: client)
            defer { nginx.stop() }
            let shop = PostgresShop(url: database)
            _ = try shop.rows(
                "UPDATE wood_stock SET quantity = 500 WHERE wood IN ('mahogany', 'swampAsh', 'rosewood', 'birdseyeMaple')"
            )
            let initial = try shop.stock()
            let doomed = instances[1]

            let outcome = try await CrashRecoveryTests.storm(
                round: 1, at: nginx.baseURL, killing: doomed.pid, client: client)
            let exit = try await doomed.waitForExit(within: .seconds(10))
            #expect(exit == .init(code: SIGKILL, bySignal: true), "\(exit)")
            #expect(outcome.reachedQuota, "never reached \(CrashRecoveryTests.killAfter) confirmed orders")
            #expect(outcome.unexpected.isEmpty, "\(outcome.unexpected.prefix(5))\n\(bench.outputs)")
            // Round robin really spread the storm: every instance served some of it.
            let used = Set(nginx.upstreamsUsed)
            for instance in instances {
                #expect(used.contains("127.0.0.1:\(instance.port)"), "\(used)")
            }

            let stored = try shop.orders()
            #expect(ShopDatabase.violations(initial: initial, stock: try shop.stock(), orders: stored).isEmpty)
            var numbers: [String] = []
            for order in outcome.confirmed {
                let page = try await client.get(nginx.baseURL + "/checkout", cookie: order.cookie)
                guard let number = page.orderNumber, let row = stored[number] else {
                    Issue.record("a confirmed order is not shown through nginx or not stored: \(page)")
                    continue
                }
                #expect(row.lines.sorted() == order.lines.sorted(), "\(number)")
                numbers.append(number)
            }
            // Once each: no two confirmations name one order.
            #expect(numbers.count == outcome.confirmed.count)
            #expect(Set(numbers).count == numbers.count)
            #expect(stored.count >= outcome.confirmed.count)

            // The shop goes on through nginx with one instance dead.
            let customer = Customer(client: client, server: nginx.baseURL)
            var after = 0
            for _ in 1...6 {
                let cookie = try await customer.checkedOut(
                    GuitarChoice(shape: "chunky", body: "mahogany", fretboard: "rosewood"))
                let answer = try await customer.order(cookie: cookie)
                #expect(answer.status == 204, "\(answer)")
                if answer.status == 204 { after += 1 }
            }
            print(
                "[scale-out] kill -9 of one of three instances behind nginx: \(outcome.confirmed.count) confirmed, "
                    + "\(outcome.refused) refused, \(outcome.failedByKill) requests cut by the kill, "
                    + "\(stored.count) stored, all \(numbers.count) shown through nginx; \(after) orders after the kill"
            )
        }
    }
}
