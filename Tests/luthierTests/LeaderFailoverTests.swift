import Foundation
import Testing

/// The workshop floor's leader cut off from PostgreSQL without its process ending (a machine gone,
/// a link cut: nothing closes), while orders flow through another instance.
@Suite(
    "Process: the floor's leader cut off from PostgreSQL",
    .enabled(if: PostgresDatabase.serverURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct LeaderFailoverTests {
    static let leads = "This instance runs the workshop floor"
    /// What the issue asks of a fail-over: a new leader within this of the cut.
    static let failoverBound = Duration.seconds(10)

    /// The leader reaches the database through a link the test cuts; the follower, and the
    /// customers' orders, go straight. Every stage a second, so both floors have work throughout.
    ///
    /// The cut closes nothing, so before the leader's lease PostgreSQL kept the old leader's lock
    /// for as long as the link was down and the floor stopped. Now the server ends the silent
    /// leader's session after its lease, the follower leads within the bound, the old leader's
    /// statements that cross when the link is mended are refused for their ended term, and it
    /// follows. Checked in the database: every order the shop confirmed is there, each stage once
    /// and in order, and no stage moved in the old term after the first of the new.
    @Test func aLeaderCutOffIsReplacedWithinTheBoundAndMovesNothingOnceItsLinkReturns() async throws {
        let database = try PostgresDatabase.fresh()
        defer { PostgresDatabase.drop(database) }
        guard let components = URLComponents(string: database), let host = components.host else {
            throw TestFailure("not a URL: \(database)")
        }
        let link = try await CuttableLink.start(to: host, port: components.port ?? 5432)
        var linked = components
        linked.port = link.port
        guard let throughLink = linked.string else { throw TestFailure("no URL through the link") }
        let shop = PostgresShop(url: database)
        let common = ["--workshop-pace", "1s", "--leader-lease", "3", "--orders-per-hour-per-client", "1000"]
        do {
            try await withWorkbench { bench in
                let leader = try await bench.startServer(arguments: ["--database", throughLink] + common)
                try await waitUntil("the first instance leads the floor", limit: .seconds(20)) {
                    leader.output.contains(Self.leads)
                }
                let follower = try await bench.startServer(arguments: ["--database", database] + common)
                let client = ShopClient()
                let customer = Customer(client: client, server: follower.baseURL)
                let confirmed = Locked<[String]>([])
                let checkout = follower.url("/checkout")
                let orders = Task {
                    while !Task.isCancelled {
                        let cookie = try await customer.checkedOut(
                            GuitarChoice(shape: "longV", body: "mahogany", fretboard: "rosewood"))
                        guard try await customer.order(cookie: cookie).status == 204 else { continue }
                        let page = try await client.get(checkout, cookie: cookie)
                        if let number = page.text.firstMatch(of: /LU-[0-9A-Z]{6}/) {
                            confirmed.withLock { $0.append(String(number.output)) }
                        }
                        try await Task.sleep(for: .milliseconds(500))
                    }
                }
                do {
                    let oldTerm = try #require(
                        try shop.rows("SELECT term FROM floor_term").first?.first.flatMap(Int.init))
                    try await waitUntil("a stage moved by the first leader", limit: .seconds(20)) {
                        (try? shop.rows("SELECT count(*) FROM order_stages WHERE term = \(oldTerm)").first?.first)
                            .flatMap { $0 }.flatMap(Int.init) ?? 0 >= 1
                    }

                    try await link.cut()
                    let cutAt = ContinuousClock.now
                    try await waitUntil("the follower leads the floor", limit: Self.failoverBound) {
                        follower.output.contains(Self.leads)
                    }
                    let failover = cutAt.duration(to: .now)
                    // Orders go on through the follower, and its floor moves them.
                    try await waitUntil("stages moved in the new term", limit: .seconds(20)) {
                        (try? shop.rows("SELECT count(*) FROM order_stages WHERE term > \(oldTerm)").first?.first)
                            .flatMap { $0 }.flatMap(Int.init) ?? 0 >= 5
                    }
                    try await link.mend()
                    let confirmedAtMend = confirmed.withLock { $0.count }
                    // The old leader's link is back: what it sent crosses, it finds its connection
                    // ended and steps down; orders go on meanwhile.
                    try await waitUntil("the old leader steps down", limit: .seconds(20)) {
                        leader.output.contains("no longer runs the workshop floor")
                    }
                    try await waitUntil("three more orders after the link was mended", limit: .seconds(20)) {
                        confirmed.withLock { $0.count } >= confirmedAtMend + 3
                    }
                    orders.cancel()
                    _ = await orders.result
                    // What is still in flight lands (a stage due meanwhile, a held statement refused).
                    try await Task.sleep(for: .seconds(2))

                    let numbers = confirmed.withLock { $0 }
                    let stored = Set(try shop.rows("SELECT number FROM orders").compactMap(\.first))
                    #expect(Set(numbers).isSubset(of: stored), "an order the shop confirmed is missing")
                    let rows = try shop.rows(
                        "SELECT order_number, status, coalesce(term, -1) FROM order_stages ORDER BY id")
                    let shipped = ["woodSelection", "bodyShaping", "finishing", "setup", "shipped"]
                    let pickedUp = Array(shipped.dropLast()) + ["readyForPickup"]
                    for number in stored {
                        // Each stage once, in order, none skipped.
                        let stages = rows.filter { $0.first == number }.map { $0[1] }
                        #expect(
                            [shipped, pickedUp].contains { Array($0.prefix(stages.count)) == stages },
                            "\(number): \(stages)")
                    }
                    let terms = rows.compactMap { Int($0[2]) }
                    let newTerm = try #require(terms.filter { $0 > oldTerm }.first, "no stage moved after the cut")
                    let firstOfNew = try #require(terms.firstIndex(of: newTerm))
                    #expect(
                        !terms[firstOfNew...].contains(oldTerm),
                        "the old leader moved a stage after the new leader's first: \(terms)")
                    // The old leader led once, and never again.
                    #expect(
                        leader.output.components(separatedBy: Self.leads).count - 1 == 1,
                        "the old leader led again:\n\(leader.output)")
                    // Both kiosks show the whole workshop: the old leader's caught up once its link was back.
                    for instance in [leader, follower] {
                        try await waitUntil("every order on \(instance.baseURL)'s kiosk", limit: .seconds(20)) {
                            let page = try? await client.get(instance.url("/kiosk"))
                            return page?.text.contains(#"counter-ordered-today">\#(stored.count)<"#) == true
                        }
                    }
                    print(
                        "[reliability] the floor's leader cut off from PostgreSQL: the follower led after "
                            + "\(failover.milliseconds) ms; \(numbers.count) orders confirmed, all stored; "
                            + "\(terms.filter { $0 == oldTerm }.count) stages moved in the old term, "
                            + "\(terms.filter { $0 > oldTerm }.count) in the new")
                } catch {
                    orders.cancel()
                    await client.shutdown()
                    throw TestFailure("\(error)\n\(bench.outputs)")
                }
                await client.shutdown()
            }
        } catch {
            await link.close()
            throw error
        }
        await link.close()
    }
}
