import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// What an operator can set on the command line; everything has a default that serves the shop.
public struct LuthierConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The folder with the stylesheet, the browser script and icons.
    public var publicDirectory: String
    /// The folder with the Mustache templates.
    public var templatesDirectory: String
    /// How long a session may go unused (no request, no open stream) before it is dropped.
    public var sessionIdleTimeout: Duration
    /// Live sessions at most; a new visitor past it gets 503 with `Retry-After`.
    public var maxSessions: Int
    /// How often every event stream gets a comment line, so idle connections stay open.
    public var heartbeatInterval: Duration
    /// Connections served at once at most; past it a new connection gets 503 with `Retry-After`.
    public var maxConnections: Int
    /// Requests taken in and not yet answered at most; past it a request gets 503 with
    /// `Retry-After` at once (the server sheds what it cannot answer in good time).
    public var maxRequestsInProgress = 1_024
    /// Event streams open at once at most, in all and for one session (503 with `Retry-After`).
    public var maxEventStreams: Int
    public var maxEventStreamsPerSession: Int
    /// Kiosk displays' streams at most, in a budget of their own (they need no session).
    public var maxKioskStreams: Int
    /// Streams of every kind one client address may hold at once (503 with `Retry-After` past it).
    public var maxEventStreamsPerClient: Int
    /// The tap events each session's recorder keeps (its inspector's lanes), and the shop's.
    public var sessionTapEvents: Int
    public var shopTapEvents: Int
    /// The store steps each session's recorder keeps for its trace (`/inspect/trace`).
    public var sessionTraceSteps: Int
    /// How long a client has to send a request's head (from connecting or the last answer), and
    /// its body after the head; a client slower than that on purpose is disconnected.
    public var requestHeadTimeout: Duration
    public var requestBodyTimeout: Duration
    /// How long an event-stream reader may take nothing while data waits for it before it is
    /// disconnected (it reconnects and gets the page as it is then).
    public var stalledReaderTimeout: Duration
    /// How long a connection past `maxConnections` may take to send the head it is answered `503`
    /// to; short, so that a flood of idle connections holds no descriptor for long.
    public var refusedConnectionHeadTimeout: Duration = .seconds(1)
    /// The heartbeat is sent to one slice of the streams at a time, spread over the interval, so
    /// that ten thousand idle streams never all wake in the same instant (1 = all at once).
    public var heartbeatSlices: Int
    /// The `retry:` hint sent on every event stream, in milliseconds.
    public var reconnectDelayMilliseconds: Int
    /// How long every tab of a browser may be hidden before its streams close (they resume at
    /// once when a tab shows again); nil: they never close. A kiosk's never do.
    public var hiddenStreamClose: Duration? = .seconds(300)
    /// The largest form body accepted (413 past it).
    public var maxFormBytes: Int
    /// `Cache-Control` for files from `Public/`.
    public var staticCacheControl: String
    /// How long a stored session is kept after its last use (and how long the cookie lives).
    public var sessionRetention: Duration
    /// How long a stored session that holds nothing worth keeping (an anonymous visitor who only
    /// tried some options) is kept after its last use.
    public var leftoverSessionRetention: Duration
    /// How often stored sessions past their retention are deleted.
    public var sessionExpiryInterval: Duration
    /// The discount codes customers can apply to a cart.
    public var discountCodes: [DiscountCode]
    /// The token the admin pages ask for; nil turns the admin pages off.
    public var adminToken: String?
    /// How long an admin sign-in lasts in a browser.
    public var adminSignInLifetime: Duration
    /// Failed admin sign-ins (or wrong bearer tokens) one client address may make (429 past it).
    public var adminFailureLimit: RateLimiter.Rule
    /// How long the workshop spends on each stage of an order: a day, or seconds for a demo.
    public var workshopPace: WorkshopPace
    /// Host names the shop answers to; empty for its own names and addresses (`RequestOrigin`).
    public var allowedHosts: [String]
    /// Whether a reverse proxy in front is trusted for `Forwarded`, `X-Forwarded-Proto` and
    /// `X-Forwarded-For`.
    public var trustProxy: Bool
    /// How many leading bits of an IPv6 address count as one client for the per-client limits.
    public var ipv6ClientPrefix: Int
    /// How often the discount codes are read again from the database, so that a code another
    /// process added or expired (`luthier codes`, another instance) reaches every cart; nil reads
    /// them only at start (and after this instance's own admin changes them).
    public var codesRefreshInterval: Duration? = nil
    /// The bytes one session's recorded trace may weigh (`TraceStep.bytes`), and every session's
    /// together: recording, which any visitor can turn on, has a bound in memory.
    public var sessionTraceBytes = 64 * 1_024
    public var traceBytesInAll = 32 * 1_024 * 1_024
    /// The store steps, and the bytes they may weigh, each session keeps while nobody records it
    /// (its flight recorder): what an incident keeps of the steps that led to it. Counted in
    /// `traceBytesInAll`.
    /// (About 500 bytes a builder step in memory: a busy session's last few cost it 1.5 KiB.)
    public var sessionFlightSteps = 8
    public var sessionFlightBytes = 2 * 1_024
    /// The incidents kept for `/admin/incidents` at most, the bytes their recordings may weigh
    /// together, and how long each is kept.
    public var incidentsKept = 100
    public var incidentBytes = 8 * 1_024 * 1_024
    public var incidentRetention = Duration.seconds(7 * 24 * 3_600)
    /// Stream inspectors one session, and one client address, may hold open at once: four views
    /// of one's own streams side by side, and two browsers' worth on one address.
    public var maxInspectorsPerSession = 4
    public var maxInspectorsPerClient = 8
    /// How much of a scarce wood one order, session and client may take.
    public var scarceWoods: ScarceWoodRule = .standard
    /// Orders one session, and one client address, may place over time (429 past it).
    public var orderLimitPerSession: RateLimiter.Rule
    public var orderLimitPerClient: RateLimiter.Rule
    /// The key session ids are signed with (32 bytes), shared by every instance of one shop, so
    /// that an id one instance issued is adopted by another; nil makes one for this process.
    public var sessionIDKey: [UInt8]? = nil
    /// How the workshop journal's reader reads (`--news-stories`, `--news-timeout`,
    /// `--news-refresh`): how many stories, the deadline of each request, how often.
    public var journal = JournalFeature.Settings()

    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        publicDirectory: String = "Public",
        templatesDirectory: String = "Templates",
        sessionIdleTimeout: Duration = .seconds(30 * 60),
        maxSessions: Int = 20_000,
        heartbeatInterval: Duration = .seconds(15),
        heartbeatSlices: Int = 16,
        maxConnections: Int = 16_000,
        maxEventStreams: Int = 12_000,
        maxEventStreamsPerSession: Int = 10,
        maxKioskStreams: Int = 2_000,
        maxEventStreamsPerClient: Int = 200,
        sessionTapEvents: Int = 512,
        shopTapEvents: Int = 4_096,
        sessionTraceSteps: Int = 256,
        requestHeadTimeout: Duration = .seconds(10),
        requestBodyTimeout: Duration = .seconds(10),
        stalledReaderTimeout: Duration = .seconds(30),
        reconnectDelayMilliseconds: Int = 2_000,
        maxFormBytes: Int = 16 * 1024,
        staticCacheControl: String = "public, max-age=300",
        sessionRetention: Duration = .seconds(30 * 24 * 3_600),
        leftoverSessionRetention: Duration = .seconds(24 * 3_600),
        sessionExpiryInterval: Duration = .seconds(3_600),
        discountCodes: [DiscountCode] = [],
        adminToken: String? = nil,
        workshopPace: WorkshopPace = .days,
        allowedHosts: [String] = [],
        trustProxy: Bool = false,
        ipv6ClientPrefix: Int = 64,
        orderLimitPerSession: RateLimiter.Rule = .perHour(3),
        orderLimitPerClient: RateLimiter.Rule = .perHour(6),
        adminSignInLifetime: Duration = .seconds(30 * 60),
        adminFailureLimit: RateLimiter.Rule = RateLimiter.Rule(limit: 5, window: .seconds(15 * 60))
    ) {
        self.host = host
        self.port = port
        self.publicDirectory = publicDirectory
        self.templatesDirectory = templatesDirectory
        self.sessionIdleTimeout = sessionIdleTimeout
        self.maxSessions = maxSessions
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatSlices = max(heartbeatSlices, 1)
        self.maxConnections = maxConnections
        self.maxEventStreams = maxEventStreams
        self.maxEventStreamsPerSession = maxEventStreamsPerSession
        self.maxKioskStreams = maxKioskStreams
        self.sessionTapEvents = sessionTapEvents
        self.shopTapEvents = shopTapEvents
        self.sessionTraceSteps = sessionTraceSteps
        self.maxEventStreamsPerClient = maxEventStreamsPerClient
        self.requestHeadTimeout = requestHeadTimeout
        self.requestBodyTimeout = requestBodyTimeout
        self.stalledReaderTimeout = stalledReaderTimeout
        self.reconnectDelayMilliseconds = reconnectDelayMilliseconds
        self.maxFormBytes = maxFormBytes
        self.staticCacheControl = staticCacheControl
        self.sessionRetention = sessionRetention
        self.leftoverSessionRetention = leftoverSessionRetention
        self.sessionExpiryInterval = sessionExpiryInterval
        self.discountCodes = discountCodes
        self.adminToken = adminToken
        self.workshopPace = workshopPace
        self.allowedHosts = allowedHosts
        self.trustProxy = trustProxy
        self.ipv6ClientPrefix = ipv6ClientPrefix
        self.orderLimitPerSession = orderLimitPerSession
        self.orderLimitPerClient = orderLimitPerClient
        self.adminSignInLifetime = adminSignInLifetime
        self.adminFailureLimit = adminFailureLimit
    }
}
