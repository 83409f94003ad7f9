import HTTPTypes
import Hummingbird

/// Serves the files of a ``StaticAssetCatalog`` (the `Public/` folder) with precompressed gzip, ETags and caching.
///
/// Why our own middleware instead of Hummingbird's `FileMiddleware`: the assets are precompressed and
/// fingerprinted once at start-up, so a response is a lookup that can pick the gzip or identity variant by
/// `Accept-Encoding`, with a distinct strong ETag per variant and `Vary: Accept-Encoding`, which caches need to
/// avoid handing gzip to a client that cannot read it.
///
/// It only answers `GET`/`HEAD` requests whose path names a catalog file; every other request goes to `next`
/// and its response is returned untouched. This is deliberately **not** a general response-compression
/// middleware: it never compresses route responses, so server-sent event streams (`text/event-stream`) are
/// never buffered or gzipped and reach the browser event by event. Paths that try to escape the folder
/// (`..`, `%2e%2e`, `%2f`, backslashes, NUL) never match a catalog entry, so they fall through to the router,
/// which answers 404.
public struct StaticAssetMiddleware<Context: RequestContext>: RouterMiddleware {
    /// A conservative default: long enough to spare repeat downloads, short enough that a deploy shows up within
    /// the hour even for clients that do not revalidate (revalidation is cheap thanks to the ETags).
    public static var defaultCacheControl: String { "public, max-age=3600" }

    package let catalog: StaticAssetCatalog
    package let cacheControl: String

    /// - Parameters:
    ///   - catalog: the files to serve, loaded at start-up.
    ///   - cacheControl: the `Cache-Control` value sent with every asset response (200, 304 and 406).
    public init(catalog: StaticAssetCatalog, cacheControl: String = Self.defaultCacheControl) {
        self.catalog = catalog
        self.cacheControl = cacheControl
    }

    /// The negotiation the middleware uses, exposed so its rules can be tested and reused.
    ///
    /// Forwards to ``ContentCoding/negotiate(acceptEncoding:gzipAvailable:)``; `nil` means 406 Not Acceptable.
    public static func negotiate(acceptEncoding: String?, gzipAvailable: Bool = true) -> ContentCoding? {
        ContentCoding.negotiate(acceptEncoding: acceptEncoding, gzipAvailable: gzipAvailable)
    }

    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head,
            let asset = catalog.asset(forRequestPath: request.uri.path)
        else {
            return try await next(request, context)
        }
        return response(for: asset, request: request)
    }

    package func response(for asset: StaticAssetCatalog.Asset, request: Request) -> Response {
        let (head, body) = Self.response(
            for: asset, method: request.method, requestHeaders: request.headers, cacheControl: cacheControl)
        return Response(status: head.status, headers: head.headerFields, body: body.map(ResponseBody.init) ?? .init())
    }

    /// The answer for `asset`, as a head and the body to send (nil for none): shared by this
    /// middleware and by ``StaticAssetChannelHandler``, which answers before the router.
    package static func response(
        for asset: StaticAssetCatalog.Asset, method: HTTPRequest.Method, requestHeaders: HTTPFields,
        cacheControl: String
    ) -> (head: HTTPResponse, body: ByteBuffer?) {
        var headers = HTTPFields()
        let hasVariants = asset.gzip != nil
        if hasVariants {
            headers[.vary] = "Accept-Encoding"
        }
        headers[.cacheControl] = asset.isFingerprinted ? StaticAssetCatalog.immutableCacheControl : cacheControl

        let acceptEncoding = requestHeaders.joinedValues(.acceptEncoding)
        guard let coding = Self.negotiate(acceptEncoding: acceptEncoding, gzipAvailable: hasVariants) else {
            let sentence = ByteBuffer(
                string: hasVariants
                    ? "This file is sent compressed with gzip or as it is, and Accept-Encoding refuses both.\n"
                    : "This file is sent only as it is, and Accept-Encoding refuses that.\n")
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.contentLength] = String(sentence.readableBytes)
            return (HTTPResponse(status: .notAcceptable, headerFields: headers), method == .head ? nil : sentence)
        }
        let representation = asset.representation(for: coding)
        headers[.eTag] = representation.etag
        headers[.lastModified] = asset.lastModified

        if let ifNoneMatch = requestHeaders.joinedValues(.ifNoneMatch),
            Self.ifNoneMatch(ifNoneMatch, matches: representation.etag)
        {
            return (HTTPResponse(status: .notModified, headerFields: headers), nil)
        }

        headers[.contentType] = asset.contentType
        if coding == .gzip, asset.gzip != nil {
            headers[.contentEncoding] = "gzip"
        }
        headers[.contentLength] = String(representation.body.readableBytes)
        return (HTTPResponse(status: .ok, headerFields: headers), method == .head ? nil : representation.body)
    }

    /// Weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`, and `*` matches any current representation.
    ///
    /// Entity-tags are read as quoted strings rather than split on commas, so a tag containing a comma is safe.
    package static func ifNoneMatch(_ header: String, matches etag: String) -> Bool {
        let ours = opaqueTag(etag)
        var rest = Substring(header)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == "," }
            guard !rest.isEmpty else { return false }
            if rest.first == "*" { return true }
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            guard rest.first == "\"" else {
                // Not an entity-tag: skip to the next list element.
                rest = rest.drop { $0 != "," }
                continue
            }
            let afterQuote = rest.dropFirst()
            guard let closing = afterQuote.firstIndex(of: "\"") else { return false }
            if afterQuote[..<closing] == ours { return true }
            rest = afterQuote[afterQuote.index(after: closing)...]
        }
    }

    private static func opaqueTag(_ etag: String) -> Substring {
        var tag = Substring(etag)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.first == "\"", tag.last == "\"" { tag = tag.dropFirst().dropLast() }
        return tag
    }
}
