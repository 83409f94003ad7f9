import Hummingbird
import Logging
import ServerMachinery

/// Builds the responses the routes share: pages, redirects and readable errors.
struct ResponseFactory: Sendable {
    let renderer: PageRenderer
    /// Where a refusal for a cause the operator should see (a limit, a cap, the store) is logged.
    var logger = Logger(label: "luthier.refusals")

    /// Answers smaller than this are sent plain: gzip's header and trailer, and the work, would
    /// cost more than they save.
    static let compressionThreshold = 1_024

    /// A page that is personal to the session: never stored by a cache; compressed when the
    /// browser accepts gzip and the page is worth it.
    func page(_ html: String, status: HTTPResponse.Status = .ok, for request: Request) -> Response {
        text(ByteBuffer(string: html), type: "text/html; charset=utf-8", status: status, for: request)
    }

    /// A page rendered once and cached, with the version of its stream it was rendered at as
    /// `data-version` on its `<body>` (for a live page): its first stream asks for what changed
    /// since (`?since=`), so nothing published between the render and the stream is missed, and
    /// nothing it shows is sent again.
    ///
    /// The cached bytes are shared, not copied: the answer is the part before the attribute, the
    /// attribute, and the part after. A browser that accepts gzip gets the page's two compressed
    /// segments around the attribute in a stored block: no compression per answer.
    func page(_ page: RenderedPage, version: Int?, status: HTTPResponse.Status = .ok, for request: Request)
        -> Response
    {
        if Self.acceptsGzip(request), page.bytes.readableBytes >= Self.compressionThreshold,
            let body = page.gzipped(version: version)
        {
            return Response(status: status, headers: Self.gzipPageHeaders, body: ResponseBody(byteBuffer: body))
        }
        return Response(
            status: status, headers: Self.pageHeaders, body: ResponseBody(byteBuffer: page.plain(version: version)))
    }

    /// A cached page's head fields, made once: each answer shares them until a middleware adds
    /// its own (building and checking them per answer was a tenth of a page's own cost).
    private static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .vary: "Accept-Encoding",
    ]
    private static let gzipPageHeaders: HTTPFields = {
        var headers = pageHeaders
        headers[.contentEncoding] = "gzip"
        return headers
    }()

    /// Any text answer (a page that is not cached, an error page, a trace): gzip-compressed when
    /// the client accepts it and it is at least `compressionThreshold` bytes, with `Vary` either way
    /// for those that could be.
    func text(
        _ body: ByteBuffer, type: String, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:],
        for request: Request
    ) -> Response {
        text(
            body, worthCompressing: body.readableBytes >= Self.compressionThreshold,
            compressed: { try? GzipBody.compressing(body) }, type: type, status: status, headers: extra, for: request)
    }

    /// As `text(_:type:status:headers:for:)`, for a body compressed once beforehand (`compressed`,
    /// nil when it is too short to be worth it): nothing is compressed per request.
    func text(
        _ body: ByteBuffer, compressed: ByteBuffer?, type: String, headers extra: HTTPFields = [:],
        for request: Request
    ) -> Response {
        text(
            body, worthCompressing: compressed != nil, compressed: { compressed }, type: type, status: .ok,
            headers: extra, for: request)
    }

    /// The one shape of a text answer: `Vary` when it is worth compressing, and the compressed
    /// body (made only then, and only for a client that accepts it) when there is one.
    private func text(
        _ body: ByteBuffer, worthCompressing: Bool, compressed: () -> ByteBuffer?, type: String,
        status: HTTPResponse.Status, headers extra: HTTPFields, for request: Request
    ) -> Response {
        var headers = extra
        headers[.contentType] = type
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        guard worthCompressing else {
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
        }
        headers[.vary] = "Accept-Encoding"
        if Self.acceptsGzip(request), let compressed = compressed() {
            headers[.contentEncoding] = "gzip"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: compressed))
        }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// Whether `request` accepts gzip over plain bytes (`Accept-Encoding`, as for static files).
    static func acceptsGzip(_ request: Request) -> Bool {
        ContentCoding.negotiate(acceptEncoding: request.headers.joinedValues(.acceptEncoding)) == .gzip
    }

    /// Whether the request is a browser's own navigation or form post (not the page's script):
    /// it gets a page rather than a sentence.
    static func wantsHTML(_ request: Request) -> Bool {
        request.headers[.xRequestedWith] == nil && (request.headers[.accept]?.contains("text/html") ?? false)
    }

    /// Post/redirect/get: a form post answers with "see other".
    func seeOther(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// An error as a small HTML page for a browser's form post, as plain text for scripts and tools.
    func error(_ error: UserFacingError, for request: Request) -> Response {
        // A limit, a cap or an unavailable store: one line per refusal, with its cause. The
        // sentences are the shop's own, and never carry a cookie, a key or a token.
        if error.status == .tooManyRequests || error.status == .serviceUnavailable {
            logger.warning(
                "Refused \(request.method.rawValue.prefix(16)) with \(error.status.code): \(error.message)")
        }
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        if Self.wantsHTML(request) {
            let page = ErrorPage(
                status: Int(error.status.code), reason: error.status.reasonPhrase, message: error.message)
            return text(
                ByteBuffer(string: renderer.render(page, template: "error")), type: "text/html; charset=utf-8",
                status: error.status, headers: headers, for: request)
        }
        return text(
            ByteBuffer(string: error.message + "\n"), type: "text/plain; charset=utf-8", status: error.status,
            headers: headers, for: request)
    }
}

/// What the error template shows.
struct ErrorPage: Sendable {
    let status: Int
    let reason: String
    let message: String
}
