import Hummingbird
import Logging

/// Builds the responses the routes share: pages, redirects and readable errors.
struct ResponseFactory: Sendable {
    let renderer: PageRenderer
    /// Where a refusal for a cause the operator should see (a limit, a cap, the store) is logged.
    var logger = Logger(label: "luthier.refusals")

    /// A page that is personal to the session: never stored by a cache.
    func page(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        page(ByteBuffer(string: html), status: status)
    }

    /// As `page(_:status:)`, for a body already in bytes (a cached page is sent without a copy).
    func page(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: body)
        )
    }

    /// A live page with the version of its stream it was rendered at, as `data-version` on its
    /// `<body>`: its first stream asks for what changed since (`?since=`), so nothing published
    /// between the render and the stream is missed, and nothing it shows is sent again.
    ///
    /// The cached page's bytes are shared, not copied: the answer is the part before the
    /// attribute, the attribute, and the part after, as three slices of one or two buffers.
    func page(_ body: ByteBuffer, version: Int, status: HTTPResponse.Status = .ok) -> Response {
        let view = body.readableBytesView
        guard let marker = view.firstRange(of: Self.bodyTag) else { return page(body, status: status) }
        let split = marker.upperBound - view.startIndex
        guard let head = body.getSlice(at: body.readerIndex, length: split),
            let tail = body.getSlice(at: body.readerIndex + split, length: body.readableBytes - split)
        else { return page(body, status: status) }
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(contentsOf: [head, ByteBuffer(string: " data-version=\"\(version)\""), tail])
        )
    }

    private static let bodyTag = Array("<body".utf8)

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
            headers[.contentType] = "text/html; charset=utf-8"
            let page = ErrorPage(
                status: Int(error.status.code), reason: error.status.reasonPhrase, message: error.message)
            return Response(
                status: error.status,
                headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: renderer.render(page, template: "error")))
            )
        }
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(
            status: error.status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: error.message + "\n"))
        )
    }
}

/// What the error template shows.
struct ErrorPage: Sendable {
    let status: Int
    let reason: String
    let message: String
}
