import Foundation

extension LoadRun {
    /// The guitars a long cart holds, one line each: 20 different configurations (the most lines
    /// a cart takes), as builder forms and as their lines' ids.
    static let cartGuitars: [(form: String, line: String)] = {
        let shapes = ["longV", "sharpV", "casual", "chunky"]
        let colors = ["natural", "sky", "dusk", "earth", "natural"]
        let bodies = ["mahogany", "mahogany", "mahogany", "mahogany", "swampAsh"]
        return (0..<20).map { index in
            let (shape, color, body) = (shapes[index % 4], colors[index / 4], bodies[index / 4])
            return (
                "shape=\(shape)&color=\(color)&body=\(body)&fretboard=rosewood",
                "\(shape)-\(color)-\(body)-rosewood"
            )
        }
    }()

    /// A change to one line of a cart, on carts of one line and of twenty: `cart-sessions` carts
    /// of each, each with its stream open, and `changes` quantity changes (one more, then one
    /// fewer) of one line, at `rate`, each timed to the patch on its own stream. Reports the bytes
    /// each change sends its tab and the server's CPU per change (`/proc`), for each cart length,
    /// and the ratio of the long cart's CPU to the short one's: a change should cost what changed,
    /// not what the cart holds. The two lengths take turns, four rounds each, so that what the
    /// server accumulates meanwhile (sessions, rows) weighs on both alike.
    func cartLines(_ client: LoadHTTPClient, _ server: ChildProcess?) async throws {
        let deadline = self.deadline
        var carts: [Int: [Session]] = [:]
        for lines in [1, 20] {
            carts[lines] = try await boundedMap(count: settings.cartSessions, until: deadline) { _ in
                let session = try await self.openSession(client, streamingOn: client)
                for guitar in Self.cartGuitars.prefix(lines) {
                    for (path, form) in [("/build", guitar.form), ("/cart/items", "")] {
                        let response = try await client.send(
                            .POST, path, cookie: session.cookie, form: form, extra: [("X-Requested-With", "fetch")])
                        guard response.status == 204 else {
                            throw LoadError.failure("POST \(path) answered \(response.status): \(response.text)")
                        }
                    }
                }
                return session
            }
        }
        let all = carts.values.flatMap { $0 }
        try await waitForFirstPatch(all.map(\.stream), what: "cart streams", until: deadline)
        // Let the patches of filling the carts arrive before counting.
        try? await Task.sleep(for: .milliseconds(500))
        var totals: [Int: PacedChanges] = [:]
        var latencies: [Int: [Duration]] = [:]
        let rounds = 4
        for _ in 0..<rounds {
            for lines in [1, 20] {
                let sessions = carts[lines] ?? []
                let changed = Self.cartGuitars[lines / 2].line
                // Each session's next change undoes its last: one more, then one fewer.
                var more = Array(repeating: false, count: sessions.count)
                let measured = await paced(
                    sessions, phase: "cart", client: client, server: server,
                    changes: max(1, settings.changes / rounds)
                ) { session, _ in
                    more[session].toggle()
                    let action = more[session] ? "increment" : "decrement"
                    return PacedPost(
                        path: "/cart/lines/\(changed)/\(action)", form: "", target: "cart-lines", needle: "")
                }
                var total = totals[lines] ?? PacedChanges(cpuSeconds: server == nil ? nil : 0)
                total.sent += measured.sent
                total.answered += measured.answered
                total.wireBytes += measured.wireBytes
                total.cpuSeconds = total.cpuSeconds.flatMap { sum in measured.cpuSeconds.map { sum + $0 } }
                totals[lines] = total
                latencies[lines, default: []] += sessions.flatMap { $0.stream.takeLatencies() }
            }
        }
        for session in all { session.stream.close() }
        for lines in [1, 20] {
            guard let total = totals[lines] else { continue }
            let label = "\(lines)-line carts"
            report.add("cart", "\(label): answered 204", "\(total.answered) of \(total.sent)")
            report.add(
                "cart", "\(label): send → own patch",
                Percentiles(latencies[lines] ?? []).summary([("p50", 0.5), ("p99", 0.99)]))
            report.add(
                "cart", "\(label): bytes per change per tab (\(settings.gzipStreams ? "gzip" : "plain") streams)",
                Report.number(Double(total.wireBytes) / Double(max(total.sent, 1)), 0))
            if let perChange = total.cpuPerAnswered {
                report.add(
                    "cart", "\(label): server CPU per answered change (/proc)", "\(Report.number(perChange, 3)) ms")
            }
        }
        if let long = totals[20]?.cpuPerAnswered, let short = totals[1]?.cpuPerAnswered {
            report.add(
                "cart", "CPU per change, 20-line cart ÷ 1-line cart", Report.number(long / max(short, 0.000_001), 2))
        }
    }
}
