import Hummingbird
import Logging
import LuthierDomain
import LuthierFeatures
import NIOCore
import ServerMachinery

/// Everything `buildRouter` wires together, built once per application.
public struct LuthierServices: Sendable {
    /// The environment the sessions run in (ordering also tells the showroom).
    public let environment: LuthierEnvironment
    /// The workshop as its owner runs it (the admin pages), measured.
    public let admin: WorkshopAdminClient
    /// The workshop journal's stories, which `/api/v0` serves.
    public let journal: JournalClient
    public let registry: SessionRegistry
    public let hub: EventStreamHub
    /// The open connections, against `maxConnections`.
    public let connections: ConnectionCounter
    public let requests: RequestsInProgress
    public let renderer: PageRenderer
    public let assets: StaticAssetCatalog
    public let showroom: Showroom
    /// What `/metrics` shows: counted by the router's middleware, read by Prometheus.
    public let metrics: ShopMetrics
    /// Where requests and refusals are logged.
    public let logger: Logger
    /// Why the instance should get no requests now (its database does not take writes), or nil:
    /// what `/readyz` and `/healthz` report to a load balancer.
    public var readiness: @Sendable () async -> String? = { nil }
    /// The stream inspectors' live diagrams, one per session and view.
    let inspectorFeeds = InspectorFeeds()
    /// The sessions' traces as last encoded.
    let traces = TraceCache()
    /// The requests the shop failed, each with its session's last steps (`/admin/incidents`).
    let incidents: IncidentLog
}

/// Builds the whole server: the tests call it too, with a test clock and their own configuration.
///
/// - Parameters:
///   - admin: the workshop as its owner runs it; without it the admin's stock, orders and codes
///     pages fail every action (`.failing`).
///   - journal: the workshop journal's stories; without it the journal's API fails (`.failing`).
public func buildApplication(
    configuration: LuthierConfiguration,
    environment: LuthierEnvironment,
    admin: WorkshopAdminClient = .failing,
    journal: JournalClient = .failing,
    logger: Logger = Logger(label: "luthier")
) async throws -> some ApplicationProtocol {
    let (app, _) = try await buildApplicationWithServices(
        configuration: configuration,
        environment: environment,
        admin: admin,
        journal: journal,
        logger: logger
    )
    return app
}

/// As `buildApplication`, also returning the services, so tests can watch sessions and streams.
///
/// - Parameter showroomClock: a clock for the workshop floor and the kiosk alone (tests drive
///   them apart from the sessions' timers); by default they share the environment's.
public func buildApplicationWithServices(
    configuration: LuthierConfiguration,
    environment: LuthierEnvironment,
    admin: WorkshopAdminClient = .failing,
    journal: JournalClient = .failing,
    news: NewsClient? = nil,
    logger: Logger = Logger(label: "luthier"),
    showroomClock: (any Clock<Duration>)? = nil,
    storeLockWaits: @escaping @Sendable () -> Int = { 0 },
    readiness: @escaping @Sendable () async -> String? = { nil },
    showcase: ShowcaseClient? = nil,
    floorLeadership: FloorLeadership = .always,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> (some ApplicationProtocol, LuthierServices) {
    // Every write to the store and every rate request is measured, whoever makes it.
    let metrics = ShopMetrics(storeLockWaits: storeLockWaits)
    let environment = metrics.measuring(environment)
    let assets = try StaticAssetCatalog(directory: configuration.publicDirectory)
    let renderer = try await PageRenderer(
        directory: configuration.templatesDirectory, assetURL: assets.url(for:),
        hiddenStreamClose: configuration.hiddenStreamClose)
    var showroomEnvironment = environment
    if let showroomClock { showroomEnvironment.clock = showroomClock }
    // The shop's streams (the kiosk feed, the workshop floor, the rates) record into a recorder of
    // their own: the environment's when the live wiring made one (the rates provider it built
    // records into it too), else a new one.
    let shopTaps =
        environment.taps
        ?? TapRecorder.shop(configuration: configuration, clock: showroomEnvironment.clock, logger: logger)
    showroomEnvironment.taps = shopTaps
    // The showroom's inputs come first: the sessions tell the floor of orders and the kiosk of
    // builders, and the kiosk reads the sessions' counters.
    let floor = WorkshopFloor(
        environment: showroomEnvironment, pace: configuration.workshopPace, leadership: floorLeadership)
    var sessionEnvironment = environment.telling(floor)
    // Each session records into its own recorder (the registry gives it one), never the shop's.
    sessionEnvironment.taps = nil
    // The exchange rates are the shop's, shared by every session's checkout: their requests are
    // tapped into the shop's recorder.
    sessionEnvironment.exchangeRates = environment.exchangeRates.tapped("rates.request", into: shopTaps)
    let (builds, builderActedHere) = KioskFeed.builderInput()
    // With other instances, the kiosk shows what is built on any of them, and the counters of
    // all of them (`ShowcaseRelay`).
    let (builtHere, announce) = KioskFeed.builderInput()
    let builderActed: @Sendable (Guitar) -> Void
    if showcase == nil {
        builderActed = builderActedHere
    } else {
        builderActed = { guitar in
            builderActedHere(guitar)
            announce(guitar)
        }
    }
    let registry = SessionRegistry(
        maxSessions: configuration.maxSessions,
        renderer: renderer,
        environment: sessionEnvironment,
        discounts: DiscountBook(configuration.discountCodes),
        logger: logger,
        tapEvents: configuration.sessionTapEvents,
        traceSteps: configuration.sessionTraceSteps,
        traceBytes: configuration.sessionTraceBytes,
        traceBytesInAll: configuration.traceBytesInAll,
        flightSteps: configuration.sessionFlightSteps,
        flightBytes: configuration.sessionFlightBytes,
        sessionIDKey: configuration.sessionIDKey,
        onBuilderActed: builderActed
    )
    // The woods out of stock at start-up, which every builder marks (a store that cannot be read
    // now marks none; the next change of stock tells them).
    if let woods = try? await admin.soldOut() { registry.stockChanged(soldOut: woods) }
    let relay = showcase.map {
        ShowcaseRelay(
            client: $0, builtHere: builtHere, show: builderActedHere, localCounters: { registry.counters() },
            clock: showroomEnvironment.clock)
    }
    let feed = KioskFeed(
        environment: showroomEnvironment, floor: floor, builds: builds,
        counters: { relay?.counters() ?? registry.counters() })
    // The journal's reader: another shop's API when `news` is given (`--news-url`), else this
    // shop's own journal, read in process.
    let journalFeed = JournalFeed(
        news: news ?? .local(journal), clock: showroomEnvironment.clock, settings: configuration.journal,
        taps: showroomEnvironment.taps)
    let showroom = Showroom(
        floor: floor, feed: feed, journal: journalFeed, renderer: renderer, taps: showroomEnvironment.taps)
    let services = LuthierServices(
        environment: sessionEnvironment,
        admin: metrics.measuring(admin, on: environment.clock),
        journal: journal,
        registry: registry,
        hub: EventStreamHub(
            slices: configuration.heartbeatSlices, maxStreams: configuration.maxEventStreams,
            maxStreamsPerSession: configuration.maxEventStreamsPerSession,
            maxKioskStreams: configuration.maxKioskStreams,
            maxStreamsPerClient: configuration.maxEventStreamsPerClient,
            maxInspectorsPerSession: configuration.maxInspectorsPerSession,
            maxInspectorsPerClient: configuration.maxInspectorsPerClient,
            reconnectDelayMilliseconds: configuration.reconnectDelayMilliseconds, logger: logger,
            patchWritten: { metrics.patchWritten(after: $0) }),
        connections: ConnectionCounter(limit: configuration.maxConnections),
        requests: RequestsInProgress(limit: configuration.maxRequestsInProgress, logger: logger),
        renderer: renderer,
        assets: assets,
        showroom: showroom,
        metrics: metrics,
        logger: logger,
        readiness: readiness,
        incidents: IncidentLog(
            limits: .init(
                count: configuration.incidentsKept, bytes: configuration.incidentBytes,
                retention: configuration.incidentRetention),
            now: environment.now, logger: logger)
    )
    let router = buildRouter(configuration: configuration, services: services)
    let staticAnswers = StaticAssetAnswers(catalog: assets, cacheControl: configuration.staticCacheControl)
    let sessionService = SessionService(
        registry: services.registry,
        hub: services.hub,
        environment: environment,
        sweepInterval: max(configuration.sessionIdleTimeout / SessionRegistry.sweepsBeforeDrop, .milliseconds(10)),
        heartbeatInterval: configuration.heartbeatInterval / configuration.heartbeatSlices,
        retention: configuration.sessionRetention,
        leftoverRetention: configuration.leftoverSessionRetention,
        expiryInterval: configuration.sessionExpiryInterval,
        codes: configuration.codesRefreshInterval.map { interval in (interval, { try await admin.discountCodes() }) },
        incidents: services.incidents,
        logger: logger
    )
    let limits = ConnectionGuard.Limits(
        headerTimeout: TimeAmount(configuration.requestHeadTimeout),
        bodyTimeout: TimeAmount(configuration.requestBodyTimeout),
        stalledWriteTimeout: TimeAmount(configuration.stalledReaderTimeout),
        refusedHeadTimeout: TimeAmount(configuration.refusedConnectionHeadTimeout),
        maxBodyBytes: configuration.maxFormBytes)
    let app = Application(
        router: router,
        server: .layeredHTTP1(
            beforeConversion: {
                [
                    ConnectionGuard(limits: limits, counter: services.connections, logger: logger),
                    StaticAssetChannelHandler(answers: staticAnswers),
                    RequestAdmission(requests: services.requests),
                ]
            },
            afterConversion: { [EventStreamChannelHandler()] }),
        // The listen queue as long as the kernel allows (`net.core.somaxconn` caps it, 4,096 on a
        // current Linux): a burst of connects waits there for the accept, where 256 overflowed
        // and the kernel dropped the rest, to be tried again a second later.
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Luthier", backlog: 4_096),
        // Shut down in reverse order, right after the server: the streams end before the stores
        // they follow are finished.
        services: [
            sessionService, ShowroomService(showroom: showroom, relay: relay),
            EventStreamDrain(hub: services.hub),
        ],
        onServerRunning: { channel in
            do {
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(logger: logger), position: .first)
                }.get()
            } catch {
                logger.error("Could not guard the listening socket against the descriptor limit: \(error)")
            }
            await onServerRunning(channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
    return (app, services)
}

/// The routes and middleware, as a plain function so that router-level tests can use it alone.
public func buildRouter(
    configuration: LuthierConfiguration,
    services: LuthierServices
) -> Router<LuthierRequestContext> {
    let responses = ResponseFactory(renderer: services.renderer, logger: services.logger)
    // HEAD is answered wherever GET is, from the GET route with the body left off.
    let router = Router(context: LuthierRequestContext.self, options: .autoGenerateHeadEndpoints)
    let routes = RouteTable()
    router.add(middleware: RequestLogMiddleware(logger: services.logger, clock: services.environment.clock))
    router.add(middleware: RequestMetricsMiddleware(metrics: services.metrics, clock: services.environment.clock))
    let origin = RequestOrigin(
        allowedHosts: configuration.allowedHosts.isEmpty
            ? RequestOrigin.defaultHosts(listeningOn: configuration.host, port: configuration.port)
            : Set(configuration.allowedHosts),
        trustProxy: configuration.trustProxy, ipv6ClientPrefix: configuration.ipv6ClientPrefix)
    router.add(middleware: SecurityHeadersMiddleware(origin: origin))
    router.add(middleware: ErrorResponseMiddleware(responses: responses, routes: routes))
    router.add(
        middleware: StaticAssetMiddleware(catalog: services.assets, cacheControl: configuration.staticCacheControl))
    router.add(
        middleware: OriginCheckMiddleware(origin: origin) { error, request in responses.error(error, for: request) })
    let sessions = SessionResponses(
        registry: services.registry,
        responses: responses,
        cookieMaxAge: Int(configuration.sessionRetention.components.seconds),
        origin: origin
    )
    // Inside the error middleware, which answers what the handlers and this one throw.
    router.add(
        middleware: SessionMiddleware(registry: services.registry, cookies: sessions, incidents: services.incidents))
    let forms = FormReader(maxBytes: configuration.maxFormBytes)
    let build = BuildController(
        sessions: sessions,
        hub: services.hub,
        renderer: services.renderer,
        forms: forms
    )
    let guide = GuideController(sessions: sessions, renderer: services.renderer, forms: forms)
    let checkout = CheckoutController(
        sessions: sessions,
        environment: services.environment,
        renderer: services.renderer,
        forms: forms,
        orderLimits: OrderLimits(
            perSession: RateLimiter(rule: configuration.orderLimitPerSession, clock: services.environment.clock),
            perClient: RateLimiter(rule: configuration.orderLimitPerClient, clock: services.environment.clock)),
        scarceWoods: ScarceWoodLimits(rule: configuration.scarceWoods, clock: services.environment.clock),
        stock: services.admin.inStock,
        metrics: services.metrics,
        soldOut: { [admin = services.admin] number in try await admin.soldOut(afterOrder: number) }
    )
    let orders = OrderController(
        sessions: sessions,
        environment: services.environment,
        renderer: services.renderer,
        showroom: services.showroom,
        hub: services.hub
    )
    let kiosk = KioskController(
        showroom: services.showroom,
        hub: services.hub,
        renderer: services.renderer,
        responses: responses,
        origin: origin
    )
    let cart = CartController(sessions: sessions, renderer: services.renderer, forms: forms)
    let admin = AdminController(
        token: configuration.adminToken,
        analytics: services.environment.analytics,
        renderer: services.renderer,
        responses: responses,
        forms: forms,
        signIns: AdminSessions(lifetime: configuration.adminSignInLifetime, clock: services.environment.clock),
        failures: RateLimiter(rule: configuration.adminFailureLimit, clock: services.environment.clock),
        origin: origin,
        logger: services.logger
    )
    let workshopAdmin = services.admin.telling(
        floor: services.showroom.floor, sessions: services.registry)
    let stock = AdminStockController(admin: admin, workshop: workshopAdmin)
    let adminOrders = AdminOrdersController(admin: admin, workshop: workshopAdmin)
    let codes = AdminCodesController(admin: admin, workshop: workshopAdmin, now: services.environment.now)
    let overview = AdminOverviewController(admin: admin) {
        [services] in
        AdminOverviewPage(
            sessions: services.registry.count, maxSessions: configuration.maxSessions,
            connections: services.connections.current, streams: services.hub.openStreams,
            kioskStreams: services.hub.openKioskStreams, floorReaders: services.showroom.floor.subscriberCount)
    }
    let inspect = InspectController(
        sessions: sessions, renderer: services.renderer, hub: services.hub,
        clock: services.environment.clock,
        admin: admin, shopTaps: services.showroom.taps,
        shopCounts: { [services] in
            "\(services.connections.current) connections, \(services.hub.openStreams) streams "
                + "(\(services.hub.openKioskStreams) kiosks), \(services.registry.count) sessions"
        }, shopCodes: services.registry.discounts, feeds: services.inspectorFeeds, forms: forms,
        traces: services.traces)
    let recording = RecordingRouter(router: router, table: routes)
    // For load balancers and monitors, without a session. Liveness (`/livez`): the process serves;
    // restart it only when this fails. Readiness (`/readyz`, and `/healthz` that balancers already
    // ask): "not ready" (503, try again in 5 s) while the database does not take writes, so that a
    // balancer sends customers to an instance that can keep their changes.
    recording.get("/livez") { _, _ in plainAnswer(.ok, "ok\n") }
    for path in ["/readyz", "/healthz"] {
        recording.get(RouterPath(path)) { [readiness = services.readiness] _, _ in
            guard let problem = await readiness() else { return plainAnswer(.ok, "ok\n") }
            return plainAnswer(.serviceUnavailable, "not ready: \(problem)\n", retryAfter: "5")
        }
    }
    recording.addRoutes(build.endpoints)
    recording.addRoutes(guide.endpoints)
    recording.addRoutes(
        JournalController(
            journal: services.journal, showroom: services.showroom, renderer: services.renderer,
            responses: responses
        ).endpoints)
    recording.addRoutes(checkout.endpoints)
    recording.addRoutes(orders.endpoints)
    recording.addRoutes(cart.endpoints)
    recording.addRoutes(GuitarPictureController().endpoints)
    recording.addRoutes(admin.endpoints)
    recording.addRoutes(overview.endpoints)
    recording.addRoutes(stock.endpoints)
    recording.addRoutes(adminOrders.endpoints)
    recording.addRoutes(codes.endpoints)
    recording.addRoutes(AdminIncidentsController(admin: admin, incidents: services.incidents).endpoints)
    recording.addRoutes(kiosk.endpoints)
    recording.addRoutes(inspect.endpoints)
    recording.addRoutes(
        StreamsController(
            build: build, kiosk: kiosk, orders: orders, inspect: inspect, hub: services.hub
        ).endpoints)
    let metrics = MetricsController(metrics: services.metrics, admin: admin) { [services] in
        let sessions = services.registry.counted
        var unavailable = services.hub.refusalsByCause
        unavailable["connections"] = services.connections.refused
        unavailable["requests"] = services.requests.refused
        unavailable["sessions-full"] = sessions.refusedFull
        unavailable["session-store"] = sessions.refusedStoreUnavailable
        let inProgress = services.showroom.floor.currentState.inProgress
        return ShopMetrics.Readings(
            connections: services.connections.current, streams: services.hub.openStreams,
            kioskStreams: services.hub.openKioskStreams, sessions: services.registry.count,
            streamsByKind: services.hub.openStreamsByKind,
            ordersInProgress: Dictionary(grouping: inProgress, by: \.status).mapValues(\.count),
            conflatedPatches: services.hub.conflatedPatches, now: services.environment.now(),
            sessionsRestored: sessions.restored, readersCutOff: services.connections.cutOff,
            incidents: services.incidents.told, unavailable: unavailable)
    }
    recording.addRoutes(metrics.endpoints)
    return router
}

/// A short plain-text answer nobody caches: what the health routes say.
private func plainAnswer(_ status: HTTPResponse.Status, _ text: String, retryAfter: String? = nil) -> Response {
    var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"]
    if let retryAfter { headers[.retryAfter] = retryAfter }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
}
