import LuthierDomain
import NIOCore
import Synchronization
import TestSupport

/// What the fuzzer knows of the shop it runs against: the port, the sessions it acts for, the
/// configured codes and admin token, and the orders placed so far (learnt during the run).
struct FuzzTarget: Sendable {
    let port: Int
    /// Sessions used all the time.
    let sessions: [String]
    /// Sessions used rarely, so that the idle sweep drops them and a later request restores them.
    let rareSessions: [String]
    let adminToken: String
    /// Codes the shop offers (typed in any case), and one it offers that has expired.
    let validCodes: [String]
    let expiredCode: String
    let orders: OrderBook
}

/// The orders placed during a run, with the session that placed each and its key.
final class OrderBook: Sendable {
    struct Entry: Sendable {
        var number: String
        var key: String
        var session: String
    }

    private let entries = Mutex<[Entry]>([])

    func add(_ entry: Entry) {
        entries.withLock { entries in
            guard !entries.contains(where: { $0.number == entry.number }) else { return }
            if entries.count >= 256 { entries.removeFirst() }
            entries.append(entry)
        }
    }

    func any(using random: inout SeededGenerator) -> Entry? {
        entries.withLock { entries in
            entries.isEmpty ? nil : entries[Int.random(in: 0..<entries.count, using: &random)]
        }
    }

    var count: Int { entries.withLock { $0.count } }
}

/// One write on a connection: a request, or several pipelined, each with its expectation.
struct FuzzMessage: Sendable {
    var requests: [FuzzRequest]

    var closesConnection: Bool { requests.contains { $0.closesConnection || $0.isEventStream } }

    func bytes(port: Int) -> ByteBuffer {
        var buffer = ByteBuffer()
        for request in requests { request.encode(port: port, into: &buffer) }
        return buffer
    }
}

/// Makes random requests, valid and malformed, across every route of the shop, from a seeded
/// generator: the same seed makes the same requests in the same order.
struct RequestFuzzer {
    /// Where the requests go: the server over a socket (anything, however malformed), or its
    /// router in process (requests a parser would have let through, one at a time).
    enum Mode: Sendable {
        case socket
        case inProcess
    }

    var random: SeededGenerator
    let target: FuzzTarget
    let mode: Mode
    /// A request held back to start the next message (one that needs a connection of its own).
    private var held: FuzzMessage?

    init(seed: UInt64, target: FuzzTarget, mode: Mode) {
        random = SeededGenerator(seed: seed)
        self.target = target
        self.mode = mode
    }

    var onSocket: Bool { mode == .socket }

    // MARK: the shop's facts

    /// The POST routes that read a form, with where a plain form post is sent back to and the
    /// refusals a valid post may still get from the state it finds.
    enum FormRoute: CaseIterable {
        case build, reset, addToCart, cartLine, clearCart, discount, cartCheckout
        case checkout, shipping, currency, order, dismiss, leave

        var redirect: String {
            switch self {
            case .build, .reset, .addToCart, .dismiss, .leave: "/"
            case .cartLine, .clearCart, .discount: "/cart"
            case .cartCheckout, .checkout, .shipping, .currency, .order: "/checkout"
            }
        }

        /// Refusals a valid post may get from the session's state (a full line, no checkout…).
        var stateRefusals: Set<Int> {
            switch self {
            case .build, .reset, .clearCart, .checkout, .dismiss, .leave: []
            case .addToCart: [422]
            case .cartLine: [404, 422]
            case .discount: [422]
            case .cartCheckout: [409]
            case .shipping, .currency, .order: [409]
            }
        }

        /// Whether the route takes fields at all.
        var takesFields: Bool {
            switch self {
            case .build, .discount, .shipping, .currency: true
            default: false
            }
        }
    }

    /// Two values of each field: the 16 guitars they make are what sessions mostly choose, so that
    /// carts fill lines up to their limit (and the pictures, drawn once per guitar, are shared).
    /// Whatever subset of fields a post changes, a guitar made of these stays one of them.
    static let favouriteValues: [GuitarField: [String]] = [
        .shape: ["casual", "longV"], .color: ["natural", "sky"], .body: ["mahogany", "koa"],
        .fretboard: ["rosewood", "ebony"],
    ]

    static let favourites: [Guitar] = Guitar.allConfigurations.filter { guitar in
        GuitarField.allCases.allSatisfy { favouriteValues[$0]?.contains(guitar.rawValue(of: $0)) ?? false }
    }

    static let pages = ["/", "/cart", "/checkout", "/kiosk", "/healthz", "/admin/analytics"]
    static let staticFiles = ["/styles.css", "/app.js", "/favicon.svg"]
    static let streamPaths = ["/events", "/kiosk/events"]
    /// What must never be served: the contents of files outside `Public/`.
    static let secretMarkers = ["swift-tools-version", "root:x:0:0", "import Hummingbird", "[core]"]
    static let markup = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>"]

    // MARK: random helpers

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &random)
    }

    mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[Int.random(in: 0..<elements.count, using: &random)]
    }

    /// One of `choices`, each as likely as its weight.
    mutating func weighted<Element>(_ choices: [(weight: Int, value: Element)]) -> Element {
        let total = choices.reduce(0) { $0 + $1.weight }
        var roll = Int.random(in: 0..<total, using: &random)
        for choice in choices {
            if roll < choice.weight { return choice.value }
            roll -= choice.weight
        }
        return choices[choices.count - 1].value
    }

    static let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// `count` random characters of `alphabet` (ASCII); a long text repeats a random piece, which
    /// is as good for a fuzzer and far cheaper to make.
    mutating func randomText(_ count: Int, alphabet: [UInt8] = RequestFuzzer.letters) -> String {
        guard count <= 64 else {
            let piece = randomText(32, alphabet: alphabet)
            return String(repeating: piece, count: count / 32) + randomText(count % 32, alphabet: alphabet)
        }
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count { bytes[index] = alphabet[Int(random.next() % UInt64(alphabet.count))] }
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func hex(_ count: Int) -> String { randomText(count, alphabet: Self.hexDigits) }

    mutating func session() -> String {
        if !target.rareSessions.isEmpty, chance(0.004) { return pick(target.rareSessions) }
        return pick(target.sessions)
    }

    /// Percent-encodes some of the letters of a value: the same value, spelled differently.
    mutating func respell(_ value: String) -> String {
        guard chance(0.15) else { return value }
        var result = ""
        for byte in value.utf8 {
            if chance(0.3) {
                let hex = String(byte, radix: 16, uppercase: chance(0.5))
                result += "%" + (byte < 16 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return result
    }

    // MARK: the next message

    /// The next message, its session cookies moved on to the newest ids the jar knows (an order
    /// gives its session a new one).
    mutating func next(following jar: SessionCookieJar) -> FuzzMessage {
        var message = next()
        for index in message.requests.indices { message.requests[index].followRotations(jar) }
        return message
    }

    /// The next write: one to six requests, pipelined (HTTP/1.1 lets a client send the next
    /// request before the answer to the last). A request after which the connection cannot go on
    /// (a stream, a refusal by the parser, `Connection: close`) ends its batch.
    mutating func next() -> FuzzMessage {
        guard onSocket else { return single() }
        if let held {
            self.held = nil
            return held
        }
        let size = weighted([(3, 1), (3, 2), (3, 4), (2, 6)])
        var requests: [FuzzRequest] = []
        while requests.count < size {
            let message = single()
            if message.requests.contains(where: \.needsFreshConnection) {
                if requests.isEmpty { return message }
                held = message
                break
            }
            requests += message.requests
            if message.closesConnection || message.requests.contains(where: \.oracle.mayCloseWithoutAnswer) { break }
        }
        return FuzzMessage(requests: requests)
    }

    /// What a request sets out to test.
    enum Kind {
        case validPost, validPage, malformedForm, wrongContentType, oversizedForm, staticFile, eventStream
        case orderPage, cookie, headerOddity, traversal, crossSite, unknownPath, queryJunk, pipelined
    }

    /// How often each kind comes, per mille. Full pages are a few percent: each one after a change
    /// is rendered anew (the render cache keys on the state), the costliest answer there is. Over
    /// sockets the kinds only a socket can carry weigh more: they are what that slice is for.
    static let inProcessKinds: [(weight: Int, value: Kind)] = [
        (130, .validPost), (60, .validPage), (220, .malformedForm), (60, .wrongContentType), (30, .oversizedForm),
        (80, .staticFile), (40, .orderPage), (60, .cookie), (60, .traversal), (40, .crossSite), (50, .unknownPath),
        (30, .queryJunk),
    ]
    static let socketKinds: [(weight: Int, value: Kind)] =
        inProcessKinds + [(25, .eventStream), (150, .headerOddity), (40, .pipelined)]

    static let postRoutes: [(weight: Int, value: FormRoute)] = [
        (30, .build), (3, .reset), (10, .addToCart), (12, .cartLine), (3, .clearCart), (5, .discount),
        (4, .cartCheckout), (5, .checkout), (6, .shipping), (6, .currency), (4, .order), (2, .dismiss), (2, .leave),
    ]

    mutating func single() -> FuzzMessage {
        switch weighted(onSocket ? Self.socketKinds : Self.inProcessKinds) {
        case .validPost: FuzzMessage(requests: [validPost()])
        case .validPage: FuzzMessage(requests: [validPage()])
        case .malformedForm: FuzzMessage(requests: [malformedForm()])
        case .wrongContentType: FuzzMessage(requests: [wrongContentType()])
        case .oversizedForm: FuzzMessage(requests: [oversizedForm()])
        case .staticFile: FuzzMessage(requests: [staticFile()])
        case .eventStream: FuzzMessage(requests: [eventStream()])
        case .orderPage: FuzzMessage(requests: [orderPage()])
        case .cookie: FuzzMessage(requests: [cookieMutation()])
        case .headerOddity: FuzzMessage(requests: [headerOddity()])
        case .traversal: FuzzMessage(requests: [traversal()])
        case .crossSite: FuzzMessage(requests: [crossSite()])
        case .unknownPath: FuzzMessage(requests: [unknownPath()])
        case .queryJunk: FuzzMessage(requests: [queryJunk()])
        case .pipelined: pipelined()
        }
    }

    // MARK: valid requests

    /// A well-formed post of one of the form routes, for a pool session: it must be answered 204
    /// (a script) or 303 (a form) to the route's page, or with a refusal the state explains.
    mutating func validPost(route chosen: FormRoute? = nil) -> FuzzRequest {
        let route = chosen ?? weighted(Self.postRoutes)
        var path = path(of: route)
        var form = ""
        let refusals = route.stateRefusals
        switch route {
        case .build:
            form = buildForm()
        case .discount:
            if chance(0.7) {
                var code = pick(target.validCodes)
                code = chance(0.5) ? code.lowercased() : code
                form = "code=" + respell(chance(0.2) ? "+" + code + "+" : code)
            } else {
                form = "code=" + (chance(0.5) ? target.expiredCode : randomText(int(1...20)))
            }
        case .shipping:
            form = "option=" + respell(pick(ShippingMethod.allCases).rawValue)
        case .currency:
            form = "currency=" + respell(pick(Currency.allCases).rawValue)
        default:
            break
        }
        if chance(0.05) { path += "?" + pick(["shape=sharpV", "x=1", "code=FREE", ""]) }
        let isScript = chance(0.6)
        let oracle = FuzzOracle(
            statuses: refusals.union([isScript ? 204 : 303]), location: isScript ? nil : route.redirect,
            // Placing an order gives the session a new id, in a new cookie.
            noNewCookie: route != .order)
        var request = FuzzRequest(kind: "post valid \(route)", method: "POST", target: path, oracle: oracle)
        let cookie = session()
        request.session = cookie
        request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        if isScript { request.header("X-Requested-With", "fetch") }
        sameOriginHeaders(&request)
        if !form.isEmpty || chance(0.7) {
            request.header("Content-Type", formContentType())
            request.body = Array(form.utf8)
            request.framing = chance(0.1) ? .chunked(pieces: int(1...4)) : .contentLength
        }
        return request
    }

    mutating func path(of route: FormRoute) -> String {
        switch route {
        case .build: "/build"
        case .reset: "/build/reset"
        case .addToCart: "/cart/items"
        case .cartLine:
            "/cart/lines/\(lineID())/\(weighted([(5, "increment"), (3, "decrement"), (1, "remove")]))"
        case .clearCart: "/cart/clear"
        case .discount: "/cart/discount"
        case .cartCheckout: "/cart/checkout"
        case .checkout: "/checkout"
        case .shipping: "/checkout/shipping"
        case .currency: "/checkout/currency"
        case .order: "/checkout/order"
        case .dismiss: "/checkout/dismiss"
        case .leave: "/checkout/leave"
        }
    }

    static let allGuitars = Guitar.allConfigurations

    mutating func lineID() -> String {
        CartLine.id(for: chance(0.9) ? pick(Self.favourites) : pick(Self.allGuitars))
    }

    /// A valid builder form: a favourite guitar whole, or a few fields.
    mutating func buildForm() -> String {
        var pairs: [String]
        if chance(0.5) {
            let guitar = pick(Self.favourites)
            pairs = GuitarField.allCases.map { "\($0.rawValue)=\(respell(guitar.rawValue(of: $0)))" }
        } else {
            // Now and then any value: every option is chosen, and carts get the odd other line.
            let anyValue = chance(0.15)
            pairs = GuitarField.allCases.filter { _ in chance(0.4) }.map { field in
                let values = anyValue ? field.allowedValues : Self.favouriteValues[field] ?? field.allowedValues
                return "\(field.rawValue)=\(respell(pick(values)))"
            }
        }
        pairs.shuffle(using: &random)
        var form = pairs.joined(separator: "&")
        if chance(0.05) { form = "&" + form + "&" }
        return form
    }

    mutating func formContentType() -> String {
        weighted([
            (20, TestApp.formType), (2, "application/x-www-form-urlencoded; charset=utf-8"),
            (1, "APPLICATION/X-WWW-FORM-URLENCODED"), (1, "application/x-www-form-urlencoded ; charset=\"utf-8\""),
        ])
    }

    mutating func sameOriginHeaders(_ request: inout FuzzRequest) {
        switch int(0...5) {
        case 0: request.header("Sec-Fetch-Site", "same-origin")
        case 1: request.header("Sec-Fetch-Site", "none")
        case 2: request.header("Origin", "http://127.0.0.1:\(target.port)")
        default: break
        }
    }

    /// A GET of a page or a probe, for a pool session.
    mutating func validPage() -> FuzzRequest {
        let path = weighted([
            (20, "/"), (12, "/cart"), (10, "/checkout"), (3, "/kiosk"), (10, "/healthz"), (5, "/admin/analytics"),
        ])
        var request: FuzzRequest
        switch path {
        case "/checkout":
            request = FuzzRequest(
                kind: "page \(path)", target: path,
                oracle: FuzzOracle(statuses: [200, 303], location: "/", noNewCookie: true))
        case "/admin/analytics":
            // Without the token: 401 for a script, the sign-in form (303) for a browser.
            request = FuzzRequest(
                kind: "page /admin/analytics", target: path,
                oracle: FuzzOracle(statuses: [401, 303], location: "/admin/sign-in"))
            switch int(0...5) {
            case 0:
                request.header("Authorization", "Bearer \(target.adminToken)")
                request.oracle = .only([200])
            case 1:
                request.target = Array("\(path)?token=\(target.adminToken)".utf8)
                request.oracle = .only([400])
            case 2: request.header("Authorization", "Bearer \(target.adminToken)x")
            case 3: request.header("Authorization", "Basic \(target.adminToken)")
            case 4: request.header("Authorization", "Bearer " + String(repeating: "t", count: int(0...4_000)))
            default: break
            }
        case "/kiosk", "/healthz":
            request = FuzzRequest(kind: "page \(path)", target: path, oracle: .only([200]))
        default:
            request = FuzzRequest(
                kind: "page \(path)", target: path,
                oracle: FuzzOracle(statuses: [200], noNewCookie: true, contentType: "text/html"))
        }
        if path != "/kiosk", path != "/healthz", path != "/admin/analytics" || chance(0.5) {
            let cookie = session()
            request.session = cookie
            request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        }
        if chance(0.3) { request.header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8") }
        if chance(0.2) { request.header("Accept-Encoding", pick(["gzip", "gzip, deflate, br", "identity"])) }
        return request
    }

    // MARK: malformed forms

    /// A post whose form is refused (422): unknown, repeated or nameless fields, wrong values,
    /// broken percent-encoding, bytes that are not UTF-8, markup.
    mutating func malformedForm() -> FuzzRequest {
        let route = pick(FormRoute.allCases)
        let path = path(of: route)
        let (mutation, body) = malformedBody(for: route)
        var request = FuzzRequest(
            kind: "form \(mutation)", method: "POST", target: path,
            oracle: FuzzOracle(statuses: [422], noNewCookie: true, forbiddenText: Self.markup, forbidsMarkupOnly: true))
        let cookie = session()
        request.session = cookie
        request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        if chance(0.5) { request.header("X-Requested-With", "fetch") }
        // A browser's form post gets its refusal as an HTML page (rendered each time: kept rarer).
        if chance(0.15) { request.header("Accept", "text/html") }
        request.header("Content-Type", formContentType())
        request.body = body
        request.framing = chance(0.1) ? .chunked(pieces: int(1...3)) : .contentLength
        return request
    }

    /// A body the route must refuse, and what is wrong with it.
    mutating func malformedBody(for route: FormRoute) -> (String, [UInt8]) {
        let field: String =
            switch route {
            case .build: pick(GuitarField.allCases).rawValue
            case .discount: "code"
            case .shipping: "option"
            case .currency: "currency"
            default: pick(["shape", "code", "x", "option"])
            }
        let good: String =
            switch route {
            case .build: "\(field)=\(pick(GuitarField.allCases.first { $0.rawValue == field }?.allowedValues ?? ["x"]))"
            case .discount: "code=\(pick(target.validCodes))"
            case .shipping: "option=ground"
            case .currency: "currency=EUR"
            default: "x=1"
            }
        let mutation = int(0...13)
        switch mutation {
        case 0: return ("unknown field", Array("\(good)&zz\(randomText(3))=1".utf8))
        case 1: return ("repeated field", Array("\(good)&\(good)".utf8))
        case 2: return ("nameless field", Array("=\(randomText(4))&\(good)".utf8))
        case 3:
            let value = pick([
                "round", "", "123", "-1", "1e9", "true", "null", "[]", "LONGV", "EUR ", "%20", "%00", "0x41",
            ])
            return ("wrong value", Array("\(field)=\(value)".utf8) + (route.takesFields ? [] : Array("&y=2".utf8)))
        case 4:
            return ("broken percent", Array("\(field)=\(pick(["long%V", "%", "%4", "%zz", "a%2", "%%41"]))".utf8))
        case 5: return ("broken percent name", Array("\(pick(["%", "sh%ape", "%g0"]))=1".utf8))
        case 6:
            let bytes: [UInt8] = pick([[0xFF], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF]])
            return ("raw bytes not UTF-8", Array("\(field)=".utf8) + bytes)
        case 7:
            return ("percent bytes not UTF-8", Array("\(field)=\(pick(["%FF", "%C3%28", "%ED%A0%80", "%C0%AF"]))".utf8))
        case 8: return ("markup value", Array("\(field)=\(respellAll(pick(Self.markup)))".utf8))
        case 9: return ("json body", Array("{\"\(field)\":\"x\"}".utf8))
        case 10: return ("array field", Array("\(field)[]=\(randomText(3))".utf8))
        case 11: return ("long value", Array("\(field)=\(randomText(int(65...12_000)))".utf8))
        case 12: return ("NUL in name", Array("\(field)%00=1".utf8))
        default:
            // Markup as a field name: refused as unknown, named in the message.
            return ("markup field name", Array("\(respellAll(pick(Self.markup)))=1".utf8))
        }
    }

    /// Percent-encodes every byte that is not a letter or digit.
    func respellAll(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (byte < 16 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// A post to a random form route (a random line's `lineActions` for the line route) for one of
    /// the pool's sessions, refused with `status` whatever its body.
    private mutating func sessionPost(
        kind: String, status: Int, lineActions: [String]
    ) -> (FormRoute, FuzzRequest) {
        let route = pick(FormRoute.allCases)
        var request = FuzzRequest(
            kind: kind, method: "POST", target: path(of: route),
            oracle: FuzzOracle(statuses: [status], noNewCookie: true))
        if route == .cartLine {
            let line = lineID()
            let action = lineActions.count == 1 ? lineActions[0] : pick(lineActions)
            request.target = Array("/cart/lines/\(line)/\(action)".utf8)
        }
        let cookie = session()
        request.session = cookie
        request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        return (route, request)
    }

    /// A form sent as something other than a form: 415.
    mutating func wrongContentType() -> FuzzRequest {
        var (route, request) = sessionPost(kind: "content type", status: 415, lineActions: ["increment"])
        let type = pick([
            nil, "text/plain", "application/json", "multipart/form-data; boundary=x", "application/xml",
            "application/x-www-form-urlencodedx", "text/html;application/x-www-form-urlencoded", "", ";", "*/*",
            "application/x-www-form-urlencoded, text/plain", "\u{1}",
        ])
        if let type, onSocket || type != "\u{1}" {
            request.header("Content-Type", type)
            if type == "\u{1}" {
                // A control character in a header value: the HTTP parser refuses the request.
                request.oracle = .parserRejects
                request.closesConnection = true
            }
        }
        request.body = Array((route == .build ? "shape=longV" : "x=1").utf8)
        request.framing = .contentLength
        return request
    }

    /// A form over the 16 KiB limit: 413, whether its length is declared (answered on the head) or
    /// it comes in chunks (answered by the form's reader).
    mutating func oversizedForm() -> FuzzRequest {
        var (_, request) = sessionPost(
            kind: "oversized form", status: 413, lineActions: ["increment", "decrement", "remove"])
        if chance(0.5) { request.header("X-Requested-With", "fetch") }
        request.header("Content-Type", TestApp.formType)
        let size = weighted([(3, 16 * 1024 + 1), (5, int(16 * 1024 + 2...40_000)), (1, int(40_000...200_000))])
        var body = Array("shape=longV&pad=".utf8)
        body += [UInt8](repeating: UInt8(ascii: "a"), count: max(0, size - body.count))
        request.body = body
        request.framing = chance(0.25) ? .chunked(pieces: int(1...6)) : .contentLength
        // Refused, the connection closes (`Connection: close`), once the body is read to its end.
        request.closesConnection = true
        return request
    }

    // MARK: static files and streams

    mutating func staticFile() -> FuzzRequest {
        var path = pick(Self.staticFiles)
        if chance(0.1) { path += "?v=\(randomText(4))" }
        var request = FuzzRequest(
            kind: "static", method: chance(0.15) ? "HEAD" : "GET", target: path, oracle: .only([200, 304, 406]))
        if chance(0.6) {
            request.header(
                "Accept-Encoding",
                pick([
                    "gzip", "gzip;q=0", "identity;q=0", "*", "*;q=0", "br", "gzip;q=0.5, identity;q=0.6", ";;;q=x",
                    "GZIP", "gzip, gzip, gzip", String(repeating: "x,", count: 500),
                ]))
        }
        if chance(0.2) { request.header("If-None-Match", pick(["*", "\"abc\"", "garbage", "W/\"x\", \"y\""])) }
        if chance(0.1) { request.header("Range", "bytes=0-10") }
        if chance(0.2) {
            let cookie = session()
            request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        }
        request.oracle.noNewCookie = true
        return request
    }

    /// An event stream, read to its opening and closed.
    mutating func eventStream() -> FuzzRequest {
        let which = int(0...9)
        var request: FuzzRequest
        if which < 5 {
            request = FuzzRequest(
                kind: "stream /events", target: "/events",
                oracle: FuzzOracle(statuses: [200, 503], noNewCookie: true, contentType: "text/event-stream"))
            let cookie = session()
            request.session = cookie
            request.header("Cookie", "\(TestApp.cookieName)=\(cookie)")
        } else if which < 6 {
            request = FuzzRequest(kind: "stream /events without a session", target: "/events", oracle: .only([403]))
            if chance(0.5) {
                let forged = hex(64)
                request.forgedCookies = [forged]
                request.header("Cookie", "\(TestApp.cookieName)=\(forged)")
            }
        } else if which < 8 {
            request = FuzzRequest(
                kind: "stream /kiosk/events", target: "/kiosk/events",
                oracle: FuzzOracle(statuses: [200, 503], contentType: "text/event-stream"))
        } else if let order = target.orders.any(using: &random) {
            request = FuzzRequest(
                kind: "stream /orders/:number/events", target: "/orders/\(order.number)/events?key=\(order.key)",
                oracle: FuzzOracle(statuses: [200, 503], contentType: "text/event-stream"))
        } else {
            request = FuzzRequest(
                kind: "stream /orders/:number/events unknown", target: "/orders/LU-\(randomText(6))/events",
                oracle: .only([404]))
        }
        request.isEventStream = true
        if chance(0.3) { request.header("Accept", "text/event-stream") }
        if chance(0.2) { request.header("Last-Event-ID", pick(["0", "99999999999999999999", "-1", "abc"])) }
        if chance(0.2) { request.header("Accept-Encoding", "gzip") }
        return request
    }

    /// An order's page asked for with its session's cookie, without its key.
    static let orderBySession = "order by its session"

    mutating func orderPage() -> FuzzRequest {
        guard let order = target.orders.any(using: &random), chance(0.8) else {
            let number = pick([
                "LU-\(randomText(6, alphabet: Array("ABCDEFGHJKMNPQRSTVWXYZ23456789".utf8)))",
                randomText(int(33...300)), "%00",
                "..%2f..%2fetc%2fpasswd", "LU-%ZZ", "%F0%9F%8E%B8",
            ])
            var request = FuzzRequest(kind: "order unknown", target: "/orders/\(number)", oracle: .only([404]))
            if chance(0.5) { request.header("Cookie", "\(TestApp.cookieName)=\(session())") }
            return request
        }
        switch int(0...3) {
        case 0:
            var request = FuzzRequest(
                kind: Self.orderBySession, target: "/orders/\(order.number)", oracle: .only([200]))
            request.header("Cookie", "\(TestApp.cookieName)=\(order.session)")
            return request
        case 1:
            return FuzzRequest(
                kind: "order by its key", target: "/orders/\(order.number)?key=\(order.key)", oracle: .only([200]))
        case 2:
            let key = pick([
                String(order.key.dropLast()), order.key + "0", order.key.uppercased(), "", "%zz", hex(32),
            ])
            var request = FuzzRequest(
                kind: "order with a wrong key", target: "/orders/\(order.number)?key=\(key)", oracle: .only([404]))
            if chance(0.5) {
                let forged = hex(64)
                request.forgedCookies = [forged]
                request.header("Cookie", "\(TestApp.cookieName)=\(forged)")
            }
            return request
        default:
            // Which of two keys was meant is not the first one's to say: refused, the order unshown.
            return FuzzRequest(
                kind: "order with its key twice", target: "/orders/\(order.number)?key=x&key=\(order.key)",
                oracle: .only([422]))
        }
    }

    // MARK: cookies and headers

    /// A valid-looking request with a forged, malformed, oversized or repeated session cookie.
    /// The server must never adopt an id it did not issue.
    mutating func cookieMutation() -> FuzzRequest {
        var request: FuzzRequest = chance(0.5) ? validPage() : validPost()
        request.kind = "cookie"
        request.oracle = FuzzOracle()
        request.headers.removeAll { $0.name == "Cookie" }
        request.session = nil
        let pool = session()
        let forged = hex(64)
        let mutation = int(0...12)
        var cookie: [UInt8]
        switch mutation {
        case 0:
            cookie = Array("\(TestApp.cookieName)=\(forged)".utf8)
            request.forgedCookies = [forged]
            request.kind = "cookie forged"
        case 1:
            cookie = Array("\(TestApp.cookieName)=\(pool.uppercased())".utf8)
            request.forgedCookies = [pool.uppercased()]
            request.kind = "cookie uppercase"
        case 2:
            let value = pick([String(pool.dropLast()), pool + "0", "", "\"\(pool)\"", " \(pool)", randomText(64)])
            cookie = Array("\(TestApp.cookieName)=\(value)".utf8)
            request.forgedCookies = [value]
            request.kind = "cookie malformed"
        case 3:
            let value = String(repeating: pick(["f", "0", "a"]), count: int(1_000...60_000))
            cookie = Array("\(TestApp.cookieName)=\(value)".utf8)
            request.forgedCookies = [value]
            request.kind = "cookie oversized"
        case 4:
            cookie = Array("\(TestApp.cookieName)=".utf8) + [0xFF, 0xFE, 0x80] + Array(forged.utf8)
            request.kind = "cookie not UTF-8"
        case 5:
            cookie = Array("\(TestApp.cookieName)=\(pool); \(TestApp.cookieName)=\(forged)".utf8)
            request.forgedCookies = [forged]
            request.kind = "cookie twice, valid first"
        case 6:
            cookie = Array("\(TestApp.cookieName)=\(forged); \(TestApp.cookieName)=\(pool)".utf8)
            request.forgedCookies = [forged]
            request.kind = "cookie twice, forged first"
        case 7:
            let others = (0..<int(1...200)).map { "c\($0)=\(hex(8))" }.joined(separator: "; ")
            cookie = Array("\(others); \(TestApp.cookieName)=\(pool)".utf8)
            request.kind = "cookie among many"
        case 8:
            cookie = Array("\(TestApp.cookieName)=\(pool)".utf8)
            request.header("Cookie", "\(TestApp.cookieName)=\(forged)")
            request.forgedCookies = [forged]
            request.kind = "cookie header twice"
        case 9:
            cookie = Array(";;;=;=a; \(TestApp.cookieName); =\(pool)".utf8)
            request.kind = "cookie syntax"
        case 10:
            cookie = Array("\(TestApp.cookieName)=\(pool)%00".utf8)
            request.forgedCookies = ["\(pool)%00"]
            request.kind = "cookie with an encoded NUL"
        case 11:
            cookie = Array("\(TestApp.cookieName)=\(forged)\(forged)".utf8)
            request.forgedCookies = [forged + forged]
            request.kind = "cookie doubled"
        default:
            cookie = Array("LUTHIER_SESSION=\(pool)".utf8)
            request.kind = "cookie name in capitals"
        }
        request.header("Cookie", bytes: cookie)
        return request
    }

    /// Odd but possible heads: huge or many headers, repeated or missing Host, absolute targets,
    /// other methods and versions, broken framing.
    mutating func headerOddity() -> FuzzRequest {
        var request: FuzzRequest = chance(0.5) ? validPage() : validPost()
        let mutation = int(0...17)
        switch mutation {
        case 0:
            request.kind = "header huge"
            request.header("X-Padding", String(repeating: "p", count: int(4_000...60_000)))
        case 1:
            request.kind = "header over the parser's limit"
            request.header("X-Padding", String(repeating: "p", count: int(90_000...150_000)))
            request.oracle = .parserRejects
        case 2:
            request.kind = "header many"
            for index in 0..<int(50...400) { request.header("X-H\(index)", hex(8)) }
        case 3:
            request.kind = "header Host twice"
            request.host = .duplicate(pick(["evil.example", "127.0.0.1:\(target.port)", ""]))
            request.oracle = FuzzOracle(mayCloseWithoutAnswer: true)
        case 4:
            request.kind = "header no Host"
            request.host = .missing
            request.oracle = FuzzOracle(mayCloseWithoutAnswer: true)
        case 5:
            request.kind = "header odd Host"
            request.host = .custom(pick(["", "evil.example", "127.0.0.1:1", "[::1]", "a b", "ü.example"]))
            request.oracle = FuzzOracle(mayCloseWithoutAnswer: true)
        case 6:
            request.kind = "target absolute"
            request.target = Array("http://127.0.0.1:\(target.port)".utf8) + request.target
            request.oracle = FuzzOracle(mayCloseWithoutAnswer: true)
        case 7:
            request.kind = "method other"
            request.method = pick(["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "HEAD", "PURGE", "MKCOL", "PROPFIND"])
            request.oracle = .clientError
            // HEAD answers as GET would (an admin page without its token: 401).
            if request.method == "HEAD" { request.oracle = FuzzOracle(statuses: [200, 303, 401, 404, 405]) }
        case 8:
            request.kind = "method unknown"
            request.method = pick(["FOO", "get", "Get", "G ET", "GET\u{0}", "ÄÖÜ", String(repeating: "X", count: 200)])
            request.oracle = .parserRejects
            request.closesConnection = true
        case 9:
            // The parser treats what follows a CONNECT head as a tunnel, so the connection is of no
            // use afterwards (and a body would never end). The answer, a 404, has no length and so
            // ends only with the connection, which the server keeps until its head time-out: only
            // its head is read. Only the first request of a connection is answered at all.
            request.kind = "method CONNECT"
            request.method = "CONNECT"
            request.body = []
            request.framing = .none
            request.headers.removeAll { $0.name == "Content-Type" }
            request.readsHeadOnly = true
            request.oracle = FuzzOracle(statuses: Set(400..<500))
            request.closesConnection = true
            request.needsFreshConnection = true
        case 10:
            request.kind = "version 1.0"
            request.version = "HTTP/1.0"
            // HTTP/1.0 has no chunked transfer coding: such a request is refused by the parser.
            request.oracle.statuses?.insert(400)
            request.closesConnection = true
        case 11:
            request.kind = "version odd"
            request.version = pick(["HTTP/2.0", "HTTP/1.2", "HTTP/9", "HTTP", "http/1.1", "HTTP/1.1 extra"])
            request.oracle = .parserRejects
            request.closesConnection = true
        case 12:
            request.kind = "header Connection: close"
            request.header("Connection", "close")
            request.closesConnection = true
        case 13:
            request.kind = "header syntax"
            request.headers.append((pick(["Bad Header", "X-A ", "", "X\u{1}"]), Array("1".utf8)))
            request.oracle = .parserRejects
            request.closesConnection = true
        case 14:
            request.kind = "header folded"
            request.header("X-Fold", "a\r\n b")
            request.oracle = .parserRejects
            request.closesConnection = true
        case 15:
            request.kind = "header value not UTF-8"
            request.header("X-Bytes", bytes: [0x80, 0xFF, 0xC3, 0x28])
        case 16:
            request.kind = "framing broken"
            request.method = "POST"
            request.body = Array("shape=longV".utf8)
            request.framing = pick([
                .declared("abc"), .declared("-1"), .declared("1e3"), .declared("0x10"), .declared("11, 12"), .both,
            ])
            request.oracle = .parserRejects
            request.closesConnection = true
        default:
            request.kind = "header Expect"
            request.header("Expect", pick(["100-continue", "nonsense"]))
        }
        return request
    }

    // MARK: paths

    /// Paths that try to leave `Public/`: never a file from outside it.
    mutating func traversal() -> FuzzRequest {
        let target = pick([
            "/../Package.swift", "/%2e%2e/Package.swift", "/%2E%2E%2FPackage.swift", "/..%2fPackage.swift",
            "/..%5cPackage.swift", "/..\\Package.swift", "/styles.css/../../README.md",
            "/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/....//Package.swift", "/.%2e/.%2e/etc/passwd",
            "/%252e%252e/Package.swift", "//etc/passwd", "/\\etc\\passwd", "/styles.css%00.html", "/Public/styles.css",
            "/.git/config", "/.env", "/%2e/styles.css", "/./styles.css", "/styles.css/", "/STYLES.CSS",
            "/%c0%ae%c0%ae/Package.swift", "/..;/Package.swift", "/static/../../Sources/luthier/Luthier.swift",
            "/cart/lines/..%2f..%2fPackage.swift/increment", "/orders/..%2f..%2fetc%2fpasswd",
            "/../../../../../../etc/passwd", "/%2f%2fetc%2fpasswd", "/favicon.svg%2f..%2f..%2fPackage.swift",
        ])
        var request = FuzzRequest(
            kind: "traversal", method: pick(["GET", "GET", "HEAD", "POST"]), target: target,
            oracle: FuzzOracle(statuses: Set(400..<500), forbiddenText: Self.secretMarkers))
        if request.method == "POST" {
            request.header("Content-Type", TestApp.formType)
            request.body = Array("x=1".utf8)
            request.framing = .contentLength
        }
        if onSocket, chance(0.3) {
            // A raw NUL, space or control character in the target: the HTTP parser refuses it,
            // or lets it through to a 4xx of the application.
            request.target += pick([[0], [0x20, 0x20], [0x0B], [0x7F]])
            request.oracle.mayCloseWithoutAnswer = true
            request.closesConnection = true
        }
        return request
    }

    mutating func unknownPath() -> FuzzRequest {
        let segments = (0..<int(1...6)).map { _ in
            pick([
                randomText(int(1...12)), "%\(hex(2))", "%F0%9F%8E%B8", "%zz", "", ";a=b", "~", "@", "+", "*",
                randomText(int(200...3_000)),
            ])
        }
        var path = "/zz" + segments.joined(separator: "/")
        if chance(0.2) { path += "?" + randomText(int(0...40)) }
        var request = FuzzRequest(
            kind: "path unknown", method: pick(["GET", "POST", "PUT", "DELETE", "HEAD"]), target: path,
            oracle: .clientError)
        if request.method == "POST" || request.method == "PUT" {
            request.body = Array("x=\(randomText(int(0...200)))".utf8)
            request.header("Content-Type", TestApp.formType)
            request.framing = .contentLength
        }
        return request
    }

    /// Known pages and posts with a query string of junk: the query is ignored.
    mutating func queryJunk() -> FuzzRequest {
        var request: FuzzRequest = chance(0.6) ? validPage() : validPost()
        let junk = pick([
            "%zz=1", "&&&", "=", "a=%FF", "x=<script>alert(1)</script>", "a=1&a=2&a=3", "%", "#frag", "a=%00",
            String(repeating: "q=1&", count: 500), "key=\(hex(32))", "token=", "\u{7F}",
        ])
        if junk == "\u{7F}" {
            guard onSocket else { return request }
            request.oracle = .parserRejects
            request.closesConnection = true
        }
        let separator = request.target.contains(UInt8(ascii: "?")) ? "&" : "?"
        // The admin page refuses any token in its address, even an empty one, before anything else.
        if request.kind == "page /admin/analytics", junk == "token=" { request.oracle = .only([400]) }
        request.kind = request.kind.hasPrefix("post") ? "query on a post" : "query on a page"
        request.target += Array((separator + junk).utf8)
        return request
    }

    /// A post from another site: 403 before anything else.
    mutating func crossSite() -> FuzzRequest {
        var request = validPost()
        request.kind = "cross-site post"
        request.headers.removeAll { $0.name == "Origin" || $0.name == "Sec-Fetch-Site" }
        switch int(0...4) {
        case 0: request.header("Sec-Fetch-Site", "cross-site")
        case 1: request.header("Sec-Fetch-Site", "same-site")
        case 2: request.header("Origin", "http://evil.example")
        case 3: request.header("Origin", "null")
        default: request.header("Origin", "http://127.0.0.1:\(target.port + 1)")
        }
        request.oracle = FuzzOracle(statuses: [403], noNewCookie: true)
        return request
    }

    /// Two to four requests in one write (HTTP/1.1 pipelining), static files between router
    /// requests: the answers must come back whole and in order.
    mutating func pipelined() -> FuzzMessage {
        var requests: [FuzzRequest] = []
        for _ in 0..<int(2...4) {
            var request: FuzzRequest
            switch int(0...3) {
            case 0:
                request = FuzzRequest(kind: "static", target: pick(Self.staticFiles), oracle: .only([200]))
                request.oracle.contentType = request.target.starts(with: Array("/styles".utf8)) ? "text/css" : nil
            case 1:
                request = FuzzRequest(kind: "page /healthz", target: "/healthz", oracle: .only([200]))
                request.oracle.forbiddenText = []
            case 2: request = validPage()
            default: request = validPost(route: .build)
            }
            request.kind = "pipelined " + request.kind
            requests.append(request)
        }
        return FuzzMessage(requests: requests)
    }
}
