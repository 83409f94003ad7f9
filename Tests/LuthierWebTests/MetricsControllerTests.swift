import Testing

@testable import LuthierWeb

/// `GET /metrics` after a scripted session: the counters moved by exactly what the session did,
/// and only the admin may read them.
@Suite("MetricsController over HTTP")
struct MetricsControllerTests {
    static let token = AdminControllerTests.token
    static let bearer = [(name: "Authorization", value: "Bearer \(token)")]

    /// The samples of an exposition, keyed by the metric's name and its labels in order of name
    /// (`name{a="1",b="2"}`), so that a test does not depend on the order labels are written in.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            let series = line[..<space]
            guard let open = series.firstIndex(of: "{") else {
                samples[String(series)] = value
                continue
            }
            let labels = series[series.index(after: open)..<series.index(before: series.endIndex)]
                .split(separator: ",").map(String.init).sorted().joined(separator: ",")
            samples["\(series[..<open]){\(labels)}"] = value
        }
        return samples
    }

    @Test("a scrape after a scripted session shows each route's answers, their times, and what is open")
    func countersMoveByWhatWasDone() async throws {
        try await TestApp.run(configure: AdminControllerTests.configure) { app in
            let cookie = try await app.newSession()
            #expect(try await app.get(cookie: cookie).status == 200)
            #expect(try await app.post("/build", form: "color=earth", cookie: cookie).status == 303)
            #expect(try await app.post("/build", form: "color=plaid", cookie: cookie).status == 422)
            #expect(try await app.get("/no-such-page").status == 404)
            // Methods outside HTTP's usual nine are counted together. (Methods the parser does not
            // know never reach the router: they are answered 400 before it.)
            let brewed = try await app.request(.RAW(value: "PROPFIND"), "/")
            let brewedAgain = try await app.request(.RAW(value: "PURGE"), "/")
            #expect(brewed.status == brewedAgain.status)

            let scrape = try await app.get("/metrics", headers: Self.bearer)
            #expect(scrape.status == 200)
            #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let samples = Self.samples(scrape.text)
            let requests = "luthier_http_requests_total"
            #expect(samples["\(requests){method=\"GET\",route=\"/\",status=\"200\"}"] == 2)
            #expect(samples["\(requests){method=\"POST\",route=\"/build\",status=\"303\"}"] == 1)
            #expect(samples["\(requests){method=\"POST\",route=\"/build\",status=\"422\"}"] == 1)
            #expect(samples["\(requests){method=\"GET\",route=\"(no route)\",status=\"404\"}"] == 1)
            #expect(brewed.status == 405)
            #expect(samples["\(requests){method=\"OTHER\",route=\"(no route)\",status=\"405\"}"] == 2)
            #expect(!scrape.text.contains("PROPFIND") && !scrape.text.contains("PURGE"))
            // The scrape counts itself only once it is answered.
            #expect(samples.keys.contains { $0.contains("route=\"/metrics\"") } == false)
            let durations = "luthier_http_request_duration_seconds"
            #expect(samples["\(durations)_count{method=\"GET\",route=\"/\"}"] == 2)
            #expect(samples["\(durations)_count{method=\"POST\",route=\"/build\"}"] == 2)
            #expect(samples["luthier_live_sessions"] == Double(app.services.registry.count))
            #expect(samples["luthier_live_sessions"] == 1)
            for kind in ["session", "order", "inspector", "kiosk"] {
                #expect(samples["luthier_open_event_streams{kind=\"\(kind)\"}"] == 0, "\(kind)")
            }
            #expect((samples["luthier_open_connections"] ?? 0) >= 1)
            // Route patterns only: no session id, no path of a request.
            #expect(!scrape.text.contains(cookie))
            #expect(!scrape.text.contains("no-such-page"))

            let again = Self.samples(try await app.get("/metrics", headers: Self.bearer).text)
            #expect(again["\(requests){method=\"GET\",route=\"/metrics\",status=\"200\"}"] == 1)
            #expect(again["\(requests){method=\"GET\",route=\"/\",status=\"200\"}"] == 2)
        }
    }

    @Test("without the admin token the metrics are refused, and without one configured they do not exist")
    func onlyTheAdmin() async throws {
        try await TestApp.run(configure: AdminControllerTests.configure) { app in
            let anonymous = try await app.get("/metrics")
            #expect(anonymous.status == 401)
            let wrong = try await app.get("/metrics", headers: [("Authorization", "Bearer wrong")])
            #expect(wrong.status == 401)
            let inTheAddress = try await app.get("/metrics?token=\(Self.token)")
            #expect(inTheAddress.status == 400)
        }
        try await TestApp.run { app in
            let withoutAnAdmin = try await app.get("/metrics", headers: Self.bearer)
            #expect(withoutAnAdmin.status == 404)
        }
    }

    @Test("an order counts once, with its guitars; posting it again counts nothing more")
    func ordersAndGuitars() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, _ in
            let cookie = try await CheckoutControllerTests.checkedOut(app)
            #expect(try await app.post("/checkout/order", form: "", cookie: cookie).status == 303)
            #expect(try await app.post("/checkout/order", form: "", cookie: cookie).status == 303)
            let samples = Self.samples(try await app.get("/metrics", headers: Self.bearer).text)
            #expect(samples["luthier_orders_placed_total"] == 1)
            #expect(samples["luthier_guitars_ordered_total"] == 1)
            #expect(samples["luthier_sessions_restored_total"] == 0)
            #expect(samples["luthier_readers_cut_off_total"] == 0)
            #expect(samples["luthier_incidents_total"] == 0)
            for cause in ["connections", "sessions-full", "session-store"] {
                #expect(samples["luthier_unavailable_total{cause=\"\(cause)\"}"] == 0, "\(cause)")
            }
        }
    }

    @Test("what the store wrote, the rates served, the stages and the streams move by what a session did")
    func storeRatesStagesAndStreams() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, _ in
            let cookie = try await CheckoutControllerTests.checkedOut(app)
            let stream = try await app.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()  // retry
            _ = try await stream.nextPatch()  // the opening: not a change, not timed
            try await CheckoutControllerTests.show(.eur, app, cookie: cookie)
            // The currency's change reaches the stream: one patch written after a post.
            _ = try await stream.nextPatch()
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            _ = try await stream.nextPatch()
            #expect(
                try await app.post("/admin/stock", form: "wood=body/koa&change=1&note=x", headers: Self.bearer).status
                    == 303)

            let samples = Self.samples(try await app.get("/metrics", headers: Self.bearer).text)
            #expect(samples["luthier_open_event_streams{kind=\"session\"}"] == 1)
            #expect(samples["luthier_orders_in_progress{stage=\"woodSelection\"}"] == 1)
            #expect(samples["luthier_orders_in_progress{stage=\"setup\"}"] == 0)
            let writes = "luthier_store_write_duration_seconds_count"
            #expect(samples["\(writes){operation=\"place-order\"}"] == 1)
            #expect(samples["\(writes){operation=\"adjust-stock\"}"] == 1)
            #expect((samples["\(writes){operation=\"save-session\"}"] ?? 0) >= 3)
            #expect(samples["luthier_store_failures_total{operation=\"place-order\"}"] == 0)
            #expect(samples["luthier_exchange_rate_requests_total{currency=\"EUR\",result=\"served\"}"] == 1)
            #expect(samples["luthier_exchange_rate_requests_total{currency=\"EUR\",result=\"failed\"}"] == 0)
            #expect(samples["luthier_exchange_rate_age_seconds{currency=\"EUR\"}"] != nil)
            #expect((samples["luthier_patch_latency_seconds_count"] ?? 0) >= 2)
            #expect(samples["luthier_store_lock_waits_total"] == 0)
            #expect(samples["luthier_conflated_patches_total"] != nil)
            await stream.close()
        }
    }
}
