import ArgumentParser
import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import LuthierLive
import LuthierWeb
import SQLMachinery
import ServerMachinery
import ServiceLifecycle

/// `luthier serve` (the default): runs the shop until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the shop over HTTP (the default).")

    @Option(help: "The address to listen on.")
    var host = "0.0.0.0"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "The folder with the stylesheet, script and icons (default: the repository's Public/).")
    var `public`: String?

    @Option(help: "The folder with the Mustache templates (default: the repository's Templates/).")
    var templates: String?

    @Option(
        help:
            "The SQLite file holding the workshop's stock, orders and sessions (created if missing; ':memory:' for a throwaway), or a PostgreSQL database several instances share: postgres://user:password@host:5432/database (?sslmode=disable|prefer|require)."
    )
    var database = "luthier.sqlite"

    @Option(
        help:
            "PostgreSQL only: seconds a request waits for the database before it is refused with 503, and the server's bound on one statement, one lock wait and a transaction left idle (1–300)."
    )
    var databaseTimeout = 5

    @Option(
        help:
            "PostgreSQL only: seconds the server keeps the workshop floor's leader's lock after it last heard from the leader (a machine gone, a link cut); another instance leads within this and a second (2–300)."
    )
    var leaderLease = 3

    @Option(
        help:
            "A JSON exchange-rate provider answering {\"base\":\"USD\",\"rates\":{\"EUR\":0.83,…}}; without it the built-in rates are used."
    )
    var ratesURL: String?

    @Option(
        help:
            "A Hacker-News-compatible API (…/v0/newstories.json, …/v0/item/{id}.json) whose stories the journal panel shows, e.g. https://hacker-news.firebaseio.com; without it, this shop's own journal."
    )
    var newsURL: String?

    @Option(help: "How many of the newest stories the journal panel shows (1–100).")
    var newsStories = 30

    @Option(help: "Seconds the journal's reader waits for one answer before giving up on it (1–60).")
    var newsTimeout = 5

    @Option(help: "Seconds between the journal reader's refreshes (5–86400).")
    var newsRefresh = 60

    @Flag(
        help:
            "Make the workshop take the original app's times (1–2 s availability, …) so a demo shows the loading states."
    )
    var simulateLatency = false

    @Option(help: "Minutes a session may go unused before it is dropped.")
    var sessionIdleMinutes = 30

    @Option(
        help:
            "Seconds every tab of a browser may be hidden before its live streams close (they resume when one shows; 0: never)."
    )
    var hiddenStreamCloseSeconds = 300

    @Option(help: "Live sessions at most; past it new visitors get 503 with Retry-After.")
    var maxSessions = 20_000

    @Option(help: "Connections served at once at most; past it a new connection gets 503 with Retry-After.")
    var maxConnections = 16_000

    @Option(
        help:
            "Requests taken in and not yet answered at most; past it a request gets 503 with Retry-After at once (the liveness probe /livez is always served)."
    )
    var maxRequestsInProgress = 1_024

    @Option(help: "Event streams (live pages) open at once at most; past it 503 with Retry-After.")
    var maxEventStreams = 12_000

    @Option(help: "Kiosk displays' event streams at most, apart from the customers' (503 with Retry-After past it).")
    var maxKioskStreams = 2_000

    @Option(help: "Tap events each session keeps for its inspector (the oldest go first).")
    var sessionTapEvents = 512

    @Option(help: "Store steps each session keeps for its trace (/inspect/trace; the oldest go first).")
    var sessionTraceSteps = 256

    @Option(
        help:
            "Store steps each session keeps while nobody inspects it (its flight recorder), kept with any request the shop fails (/admin/incidents); 0 keeps none."
    )
    var sessionFlightSteps = 8

    @Option(help: "Days an incident (a failed request with its session's last steps) is kept at /admin/incidents.")
    var incidentRetentionDays = 7

    @Option(help: "Tap events the shop keeps (kiosk feed, workshop floor) for its inspector.")
    var shopTapEvents = 4_096

    @Option(
        help:
            "Event streams one client address may hold at once (behind --trust-proxy, from X-Forwarded-For); past it 503 with Retry-After."
    )
    var maxEventStreamsPerClient = 200

    @Option(help: "Days a stored session (build, cart, checkout) is kept after its last use.")
    var sessionRetentionDays = 30

    @Option(
        name: .customLong("discount"),
        help: ArgumentHelp(
            "A discount code customers can apply to a cart: CODE=PERCENT% or CODE=PERCENT%@YYYY-MM-DD (the UTC day it stops working). Repeat for more codes. Each is added to the database unless a code of that name is there already; change codes at /admin/codes or with luthier codes.",
            valueName: "code"
        )
    )
    var discounts: [String] = [Self.defaultDiscount]

    @Option(
        help:
            "The admin token, 32 characters or more (default: $LUTHIER_ADMIN_TOKEN; without a token the admin pages are off). Prefer --admin-token-file: a flag shows in ps."
    )
    var adminToken: String?

    @Option(help: "A file holding the admin token (its first line), kept out of ps and the environment.")
    var adminTokenFile: String?

    @Option(
        help: ArgumentHelp(
            "How long the workshop spends on each stage of an order: days (a day), demo (10 seconds), or a time per stage such as 30s, 5m, 2h or 1d (at most 30d).",
            valueName: "pace"
        )
    )
    var workshopPace = "days"

    @Option(
        name: .customLong("allowed-host"),
        help: ArgumentHelp(
            "A host name the shop answers to (against DNS rebinding); repeat for more. Default: localhost, the listen addresses and this machine's names and addresses.",
            valueName: "name"
        )
    )
    var allowedHosts: [String] = []

    @Flag(
        help:
            "A reverse proxy in front is trusted: Forwarded (RFC 7239) or X-Forwarded-Proto https makes the cookie Secure and sends HSTS, and Forwarded's for= (else X-Forwarded-For) names the client for per-client limits and the log."
    )
    var trustProxy = false

    @Option(
        name: .customLong("client-ipv6-prefix"),
        help:
            "How many leading bits of an IPv6 address are one client for the per-client limits (1–128): a host holds a whole /64 and can use a new address in it for every request."
    )
    var clientIPv6Prefix = 64

    @Option(
        help:
            "A wood is scarce while this many pieces or fewer are in stock; then one order, session and client may take only a few of it (0 turns the rule off)."
    )
    var scarceWoodStock = ScarceWoodRule.standard.scarceAt

    @Option(help: "The most pieces of a scarce wood one order may take.")
    var scarceWoodPerOrder = ScarceWoodRule.standard.perOrder

    @Option(help: "The most pieces of one scarce wood one session, and one client address, may take in 24 hours.")
    var scarceWoodPerCustomerPerDay = ScarceWoodRule.standard.perCustomer

    @Flag(
        help:
            "Serve an SQLite file whose integrity check finds damage (refused by default), to read out what is left before restoring a backup."
    )
    var serveCorruptDatabase = false

    /// How the log is written.
    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        /// One readable line per record, in swift-log's own format (`TextLogHandler`).
        case text
        /// One JSON object per line, for log shippers (`JSONLogHandler`).
        case json
    }

    @Option(help: "How the log is written to standard output: text, or json (one object per line, for log shippers).")
    var logFormat = LogFormat.text

    @Option(help: "Orders one browser session may place in an hour; past it 429 with Retry-After.")
    var ordersPerHourPerSession = 3

    @Option(help: "Orders one client address may place in an hour (behind --trust-proxy, from X-Forwarded-For).")
    var ordersPerHourPerClient = 6

    /// How long a graceful shutdown may take before what is left of it is cancelled.
    static let gracefulShutdownLimit = Duration.seconds(8)

    /// The code a fresh shop offers, so that trying the cart shows a discount.
    static let defaultDiscount = "WELCOME10=10%"

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard sessionIdleMinutes > 0 else { throw ValidationError("--session-idle-minutes must be at least 1.") }
        guard (1...300).contains(databaseTimeout) else {
            throw ValidationError("--database-timeout must be from 1 to 300 seconds.")
        }
        // The leader asks the database every second: a shorter lease would end a leader that is well.
        guard (2...300).contains(leaderLease) else {
            throw ValidationError("--leader-lease must be from 2 to 300 seconds.")
        }
        guard (0...86_400).contains(hiddenStreamCloseSeconds) else {
            throw ValidationError("--hidden-stream-close-seconds must be from 0 (never) to 86400.")
        }
        guard maxSessions > 0 else { throw ValidationError("--max-sessions must be at least 1.") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be at least 1.") }
        guard maxRequestsInProgress > 0 else {
            throw ValidationError("--max-requests-in-progress must be at least 1.")
        }
        guard maxKioskStreams > 0 else { throw ValidationError("--max-kiosk-streams must be at least 1.") }
        guard (1...100_000).contains(sessionTapEvents) else {
            throw ValidationError("--session-tap-events must be from 1 to 100000.")
        }
        guard (1...10_000).contains(sessionTraceSteps) else {
            throw ValidationError("--session-trace-steps must be from 1 to 10000.")
        }
        guard (0...sessionTraceSteps).contains(sessionFlightSteps) else {
            throw ValidationError(
                "--session-flight-steps must be from 0 to --session-trace-steps (\(sessionTraceSteps)).")
        }
        guard (1...365).contains(incidentRetentionDays) else {
            throw ValidationError("--incident-retention-days must be from 1 to 365.")
        }
        guard (1...1_000_000).contains(shopTapEvents) else {
            throw ValidationError("--shop-tap-events must be from 1 to 1000000.")
        }
        guard maxEventStreamsPerClient > 0 else {
            throw ValidationError("--max-event-streams-per-client must be at least 1.")
        }
        guard maxEventStreams > 0 else { throw ValidationError("--max-event-streams must be at least 1.") }
        guard ordersPerHourPerSession > 0 else {
            throw ValidationError("--orders-per-hour-per-session must be at least 1.")
        }
        guard ordersPerHourPerClient > 0 else {
            throw ValidationError("--orders-per-hour-per-client must be at least 1.")
        }
        guard sessionRetentionDays > 0 else { throw ValidationError("--session-retention-days must be at least 1.") }
        for discount in discounts {
            do {
                _ = try DiscountCode(configuration: discount)
            } catch {
                throw ValidationError("--discount \(error.description)")
            }
        }
        do {
            _ = try WorkshopPace(argument: workshopPace)
        } catch {
            throw ValidationError("--workshop-pace \(error.description)")
        }
        if adminToken != nil && adminTokenFile != nil {
            throw ValidationError("Give the admin token once: --admin-token or --admin-token-file, not both.")
        }
        if let token = try resolvedAdminToken(), token.utf8.count < 32 {
            throw ValidationError("The admin token must be at least 32 characters (openssl rand -hex 16 makes one).")
        }
        // A file is created when missing (unlike the admin commands'); a URL must at least read.
        if PostgresLocation.isPostgres(database) { try ShopDatabase.validatePostgresURL(database) }
        if let ratesURL {
            guard let url = URL(string: ratesURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--rates-url must be an http(s) URL, e.g. http://127.0.0.1:9000/rates.")
            }
        }
        if let newsURL {
            guard let url = URL(string: newsURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError(
                    "--news-url must be an http(s) URL, e.g. https://hacker-news.firebaseio.com or http://10.0.0.2:8080/api."
                )
            }
        }
        guard (1...100).contains(newsStories) else { throw ValidationError("--news-stories must be 1–100.") }
        guard (1...60).contains(newsTimeout) else { throw ValidationError("--news-timeout must be 1–60 seconds.") }
        guard (5...86_400).contains(newsRefresh) else {
            throw ValidationError("--news-refresh must be 5–86400 seconds.")
        }
    }

    /// The file's first line, the flag, or else the environment variable.
    func resolvedAdminToken() throws -> String? {
        if let adminTokenFile {
            guard let text = try? String(contentsOfFile: adminTokenFile, encoding: .utf8) else {
                throw ValidationError("--admin-token-file: '\(adminTokenFile)' cannot be read.")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !line.isEmpty else { throw ValidationError("--admin-token-file: '\(adminTokenFile)' is empty.") }
            return line
        }
        return adminToken
            ?? ProcessInfo.processInfo.environment["LUTHIER_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        var logger =
            switch logFormat {
            case .text:
                Logger(label: "luthier") { [timestamps = LogTimestamps()] in
                    TextLogHandler(label: $0, timestamps: timestamps)
                }
            case .json: Logger(label: "luthier") { JSONLogHandler(label: $0) }
            }
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let descriptors = OpenFileLimit.raise(forConnections: maxConnections)
        if let warning = descriptors.warning {
            logger.warning("\(warning)")
        }
        logger.info("Open-file limit", metadata: ["soft": "\(OpenFileLimit.current)"])
        var configuration = LuthierConfiguration(
            host: host,
            port: port,
            publicDirectory: try ResourceFolder.locate("Public", given: self.public),
            templatesDirectory: try ResourceFolder.locate("Templates", given: templates),
            sessionIdleTimeout: .seconds(sessionIdleMinutes * 60),
            maxSessions: maxSessions,
            maxConnections: descriptors.connections,
            maxEventStreams: maxEventStreams,
            maxKioskStreams: maxKioskStreams,
            maxEventStreamsPerClient: maxEventStreamsPerClient,
            sessionTapEvents: sessionTapEvents,
            shopTapEvents: shopTapEvents,
            sessionTraceSteps: sessionTraceSteps,
            sessionRetention: .seconds(sessionRetentionDays * 24 * 3_600),
            discountCodes: try discounts.map { try DiscountCode(configuration: $0) },
            adminToken: try resolvedAdminToken(),
            workshopPace: try WorkshopPace(argument: workshopPace),
            allowedHosts: allowedHosts,
            trustProxy: trustProxy,
            ipv6ClientPrefix: clientIPv6Prefix,
            orderLimitPerSession: .perHour(ordersPerHourPerSession),
            orderLimitPerClient: .perHour(ordersPerHourPerClient)
        )
        configuration.sessionFlightSteps = sessionFlightSteps
        configuration.maxRequestsInProgress = maxRequestsInProgress
        configuration.incidentRetention = .seconds(incidentRetentionDays * 24 * 3_600)
        configuration.hiddenStreamClose = hiddenStreamCloseSeconds > 0 ? .seconds(hiddenStreamCloseSeconds) : nil
        // A code another process adds or expires (`luthier codes`, another instance) reaches every
        // cart within this.
        configuration.codesRefreshInterval = .seconds(Codes.refreshSeconds)
        configuration.scarceWoods = ScarceWoodRule(
            scarceAt: scarceWoodStock, perOrder: scarceWoodPerOrder, perCustomer: scarceWoodPerCustomerPerDay,
            window: .seconds(86_400))
        configuration.journal = JournalFeature.Settings(
            maxStories: newsStories, requestTimeout: .seconds(newsTimeout), refreshInterval: .seconds(newsRefresh))
        let live = try LiveSystem(
            database: database,
            ratesURL: ratesURL.flatMap(URL.init(string:)),
            newsURL: newsURL.flatMap(URL.init(string:)),
            simulateLatency: simulateLatency,
            logger: logger,
            shopTaps: .shop(configuration: configuration, clock: ContinuousClock(), logger: logger),
            servingCorrupt: serveCorruptDatabase,
            postgresTimeouts: PostgresTimeouts(call: .seconds(databaseTimeout), leaderLease: .seconds(leaderLease))
        )
        logger.info("Database", metadata: ["database": "\(live.databaseDescription)"])
        for warning in live.warnings { logger.critical("\(warning)") }
        do {
            try await live.running { [configuration, logger] in
                try await serve(live: live, configuration: configuration, logger: logger)
            }
        } catch {
            try await live.shutdown()
            throw error
        }
        try await live.shutdown()
    }

    /// Serves until SIGINT or SIGTERM, on a store that is ready (``LiveSystem/running(_:)``).
    private func serve(live: LiveSystem, configuration: LuthierConfiguration, logger: Logger) async throws {
        var configuration = configuration
        // The codes live in the database, where the admin adds and expires them; a --discount code
        // not stored yet is added, and one stored already keeps its stored terms (an expired code
        // stays expired however often the shop restarts with the flag).
        configuration.discountCodes = try await live.seedDiscountCodes(configuration.discountCodes)
        configuration.sessionIDKey = try await live.sharedSessionIDKey()
        let host = host
        let logFormat = logFormat
        let (app, _) = try await buildApplicationWithServices(
            configuration: configuration,
            environment: live.environment,
            admin: live.admin,
            journal: live.journal,
            news: live.news,
            logger: logger,
            storeLockWaits: { live.lockWaits },
            readiness: live.readiness,
            showcase: live.showcase,
            floorLeadership: live.floorLeadership,
            onServerRunning: { [logger] port in
                // Written straight to the descriptor: `print` is block-buffered when stdout is a pipe
                // or a file, so a supervisor or script waiting for the address would only see it at exit.
                let urls = ServerAddresses.urls(host: host, port: port)
                switch logFormat {
                case .text:
                    StandardOutput.write(urls.map { "Luthier is serving on \($0)\n" }.joined())
                case .json:
                    // Every line of a JSON log is a record, the addresses too.
                    for url in urls { logger.info("Luthier is serving on \(url)", metadata: ["url": "\(url)"]) }
                }
            }
        )
        // SIGINT and SIGTERM start a graceful shutdown: no new connections, event streams end,
        // requests in flight are answered. Past the limit, what is left is cancelled, so that a
        // stalled client (a stream reader that stopped reading, a body trickling in) cannot hold
        // the process for its own time-outs (30 s and 10 s).
        var services = ServiceGroupConfiguration(
            services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        services.maximumGracefulShutdownDuration = Self.gracefulShutdownLimit
        try await ServiceGroup(configuration: services).run()
    }
}
