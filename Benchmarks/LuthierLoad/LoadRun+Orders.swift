import Foundation

extension LoadRun {
    /// What one customer of the orders phase came to.
    private struct OrderTally: Sendable {
        var confirmed = 0
        /// `409` for want of wood: the stock ran out, an answer and not a failure.
        var refused = 0
        /// The order post alone, from its send to its `204`.
        var orderLatencies: [Duration] = []
        /// The whole customer: `GET /`, `POST /build`, `POST /checkout`, `POST /checkout/order`.
        var customerLatencies: [Duration] = []

        mutating func add(_ other: OrderTally) {
            confirmed += other.confirmed
            refused += other.refused
            orderLatencies += other.orderLatencies
            customerLatencies += other.customerLatencies
        }
    }

    /// Orders per second: `concurrency` customers at a time, each a new session that builds,
    /// checks out and orders, until `orders` customers are done.
    ///
    /// Every order takes wood in its transaction, so the figure includes the workshop's write (and
    /// its `fsync`). The tool's own server is restocked first so that the run measures orders and
    /// not refusals; a running shop (`--url`) is measured as it is, and its refusals are counted.
    func ordersPerSecond(_ client: LoadHTTPClient, _ server: ChildProcess?) async throws {
        if let server { try restock(server, pieces: settings.orders) }
        let deadline = self.deadline
        let customers = settings.orders
        let width = max(1, min(settings.concurrency, customers))
        let report = self.report
        let started = ContinuousClock.now
        let tally = try await withThrowingTaskGroup(of: OrderTally.self) { group in
            for worker in 0..<width {
                group.addTask {
                    var tally = OrderTally()
                    // Worker w serves customers w, w + width, w + 2·width, …: no shared counter.
                    for customer in stride(from: worker, to: customers, by: width) {
                        guard ContinuousClock.now < deadline else {
                            throw LoadError.failure("phase timeout at customer \(customer) of \(customers)")
                        }
                        let arrived = ContinuousClock.now
                        let cookie = try await self.checkedOutSession(
                            client, color: ["earth", "sky", "dusk"][customer % 3])
                        let order = try await client.send(
                            .POST, "/checkout/order", cookie: cookie, extra: [("X-Requested-With", "fetch")],
                            timeout: 30)
                        let answered = ContinuousClock.now
                        switch order.status {
                        case 204:
                            tally.confirmed += 1
                            tally.orderLatencies.append(answered - order.sentAt)
                            tally.customerLatencies.append(answered - arrived)
                        case 409:
                            tally.refused += 1
                        default:
                            report.fail("orders", "POST /checkout/order answered \(order.status): \(order.text)")
                        }
                    }
                    return tally
                }
            }
            return try await group.reduce(into: OrderTally()) { $0.add($1) }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let points = [("p50", 0.5), ("p99", 0.99)]
        report.add(
            "orders", "\(customers) customers, \(width) at a time: each GET /, build, checkout, order",
            "\(tally.confirmed) confirmed in \(Report.milliseconds(elapsed))")
        report.add("orders", "orders per second", Report.number(Double(tally.confirmed) / max(seconds, 0.001), 1))
        report.add(
            "orders", "POST /checkout/order → 204 (\(tally.orderLatencies.count))",
            Percentiles(tally.orderLatencies).summary(points))
        report.add(
            "orders", "a whole customer, GET / → order 204", Percentiles(tally.customerLatencies).summary(points))
        if tally.refused > 0 {
            report.add("orders", "refused for want of wood (409)", "\(tally.refused)")
        }
    }

    /// Adds `pieces` of the standard guitar's woods (mahogany, rosewood) through the shop's own
    /// command line, as an owner would, in the largest adjustments the workshop books.
    private func restock(_ server: ChildProcess, pieces: Int) throws {
        guard let binary = server.process.executableURL?.path else {
            throw LoadError.failure("the server has no executable to restock with")
        }
        let database = temporary.appendingPathComponent("luthier.sqlite").path
        for wood in ["body/mahogany", "fretboard/rosewood"] {
            var left = pieces
            while left > 0 {
                let change = min(left, 1_000)
                let command = ChildProcess(
                    name: "luthier stock adjust", executable: binary,
                    arguments: [
                        "stock", "adjust", wood, "--change", "+\(change)", "--note", "luthier-load orders phase",
                        "--database", database,
                    ],
                    logURL: temporary.appendingPathComponent("restock.log"))
                try command.start()
                command.process.waitUntilExit()
                guard command.process.terminationStatus == 0 else {
                    throw LoadError.failure("restocking \(wood) failed: \(command.logTail())")
                }
                left -= change
            }
        }
    }
}
