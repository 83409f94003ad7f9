import Hummingbird
import Logging
import LuthierFeatures

/// Everything `buildRouter` wires together, built once per application.
public struct LuthierServices: Sendable {
    public let environment: LuthierEnvironment
    public let registry: SessionRegistry
    public let hub: EventStreamHub
    public let renderer: PageRenderer
    public let assets: StaticAssetCatalog
}

/// Builds the whole server: the tests call it too, with a test clock and their own configuration.
public func buildApplication(
    configuration: LuthierConfiguration,
    environment: LuthierEnvironment,
    logger: Logger = Logger(label: "luthier")
) async throws -> some ApplicationProtocol {
    let (app, _) = try await buildApplicationWithServices(
        configuration: configuration,
        environment: environment,
        logger: logger
    )
    return app
}

/// As `buildApplication`, also returning the services, so tests can watch sessions and streams.
public func buildApplicationWithServices(
    configuration: LuthierConfiguration,
    environment: LuthierEnvironment,
    logger: Logger = Logger(label: "luthier"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> (some ApplicationProtocol, LuthierServices) {
    let renderer = try await PageRenderer(directory: configuration.templatesDirectory)
    let assets = try StaticAssetCatalog(directory: configuration.publicDirectory)
    let services = LuthierServices(
        environment: environment,
        registry: SessionRegistry(
            maxSessions: configuration.maxSessions,
            renderer: renderer,
            environment: environment,
            discounts: configuration.discountCodes,
            logger: logger
        ),
        hub: EventStreamHub(),
        renderer: renderer,
        assets: assets
    )
    let router = buildRouter(configuration: configuration, services: services)
    let sessionService = SessionService(
        registry: services.registry,
        hub: services.hub,
        environment: environment,
        sweepInterval: max(configuration.sessionIdleTimeout / SessionRegistry.sweepsBeforeDrop, .milliseconds(10)),
        heartbeatInterval: configuration.heartbeatInterval,
        retention: configuration.sessionRetention,
        expiryInterval: configuration.sessionExpiryInterval,
        logger: logger
    )
    let app = Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [PeerCloseHandler()])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Luthier"),
        services: [sessionService],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
    return (app, services)
}

/// The routes and middleware, as a plain function so that router-level tests can use it alone.
public func buildRouter(
    configuration: LuthierConfiguration,
    services: LuthierServices
) -> Router<LuthierRequestContext> {
    let responses = ResponseFactory(renderer: services.renderer)
    let router = Router(context: LuthierRequestContext.self)
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(
        middleware: StaticAssetMiddleware(catalog: services.assets, cacheControl: configuration.staticCacheControl))
    router.add(middleware: SameOriginMiddleware { error, request in responses.error(error, for: request) })
    let sessions = SessionResolver(
        registry: services.registry,
        responses: responses,
        cookieMaxAge: Int(configuration.sessionRetention.components.seconds)
    )
    let forms = FormReader(maxBytes: configuration.maxFormBytes)
    let build = BuildController(
        sessions: sessions,
        hub: services.hub,
        renderer: services.renderer,
        responses: responses,
        forms: forms,
        reconnectDelayMilliseconds: configuration.reconnectDelayMilliseconds
    )
    let checkout = CheckoutController(
        sessions: sessions,
        environment: services.environment,
        renderer: services.renderer,
        responses: responses,
        forms: forms
    )
    let cart = CartController(sessions: sessions, renderer: services.renderer, responses: responses, forms: forms)
    let admin = AdminController(
        token: configuration.adminToken,
        analytics: services.environment.analytics,
        renderer: services.renderer,
        responses: responses
    )
    router.addRoutes(build.endpoints)
    router.addRoutes(checkout.endpoints)
    router.addRoutes(cart.endpoints)
    router.addRoutes(admin.endpoints)
    return router
}
