import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// The answer to a plain `GET` of each static file, in each coding, built once at start-up.
///
/// Answering the stylesheet, most of the server's own time went into building the same head for
/// every request: seven fields and the security headers, each value checked again. A request
/// that names a file exactly (no escapes) and asks for nothing conditional is answered with the
/// head made here; anything else (`If-None-Match`, an escaped path, an encoding refused) takes
/// ``StaticAssetMiddleware/response(for:method:requestHeaders:cacheControl:)``, the function that
/// built these heads, so both answer alike.
///
/// It reads and answers NIO's own HTTP/1 heads: a request for a file is answered before the
/// conversion to HTTP types, which parses the target with `URLComponents` and splits the cookie,
/// work a file never needs.
package struct StaticAssetAnswers: Sendable {
    package struct Answer: Sendable {
        package let head: HTTPResponseHead
        package let body: ByteBuffer
    }

    /// Per request path (`/styles.css`, `/styles.<hash>.css`): the answer per coding, and whether
    /// the file has a gzip variant (what negotiation needs).
    private let answers: [String: (byCoding: [ContentCoding: Answer], gzipAvailable: Bool)]
    /// For the requests that take the long way.
    private let catalog: StaticAssetCatalog
    private let cacheControl: String

    package init(catalog: StaticAssetCatalog, cacheControl: String) {
        var answers: [String: (byCoding: [ContentCoding: Answer], gzipAvailable: Bool)] = [:]
        for (path, asset) in catalog.everyAsset {
            var byCoding: [ContentCoding: Answer] = [:]
            for coding in ContentCoding.allCases {
                let (head, body) = Self.response(
                    for: asset, method: .get, requestHeaders: [.acceptEncoding: coding.rawValue],
                    cacheControl: cacheControl)
                if let body { byCoding[coding] = Answer(head: HTTPResponseHead(head), body: body) }
            }
            answers["/" + path] = (byCoding, asset.gzip != nil)
        }
        self.answers = answers
        self.catalog = catalog
        self.cacheControl = cacheControl
    }

    /// The answer to `request` if it asks for a static file (`GET` or `HEAD`): the ready one, or
    /// the long way's; nil when it names no file, and the router answers it.
    package func response(for request: HTTPRequestHead) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        guard let path = Self.filePath(of: request) else { return nil }
        if let ready = ready(at: path, for: request) { return ready }
        guard let asset = catalog.asset(forRequestPath: String(path)) else { return nil }
        let (head, body) = Self.response(
            for: asset, method: request.method == .HEAD ? .head : .get,
            requestHeaders: HTTPFields(request.headers, splitCookie: false),
            cacheControl: cacheControl)
        return (HTTPResponseHead(head), body)
    }

    /// The head and body (nil for `HEAD`) for `request`, or nil when it is not a plain request for
    /// a file by its exact name.
    package func answer(for request: HTTPRequestHead) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        Self.filePath(of: request).flatMap { ready(at: $0, for: request) }
    }

    private func ready(at path: Substring, for request: HTTPRequestHead) -> (head: HTTPResponseHead, body: ByteBuffer?)?
    {
        guard let file = answers[String(path)], !request.headers.contains(name: "If-None-Match"),
            let coding = ContentCoding.negotiate(
                acceptEncoding: request.headers.joinedValues("Accept-Encoding"), gzipAvailable: file.gzipAvailable),
            let answer = file.byCoding[coding]
        else { return nil }
        return (answer.head, request.method == .HEAD ? nil : answer.body)
    }

    /// The path a `GET` or `HEAD` asks for, without its query; nil for any other method, and for a
    /// target that is not a path (`*`, or a whole address, which the router makes sense of).
    private static func filePath(of request: HTTPRequestHead) -> Substring? {
        guard request.method == .GET || request.method == .HEAD, request.uri.utf8.first == UInt8(ascii: "/")
        else { return nil }
        let target = request.uri[...]
        return target.firstIndex(of: "?").map { target[..<$0] } ?? target
    }

    /// The middleware's answer with the security headers every response carries.
    private static func response(
        for asset: StaticAssetCatalog.Asset, method: HTTPRequest.Method, requestHeaders: HTTPFields,
        cacheControl: String
    ) -> (head: HTTPResponse, body: ByteBuffer?) {
        var (head, body) = StaticAssetMiddleware<BasicRequestContext>.response(
            for: asset, method: method, requestHeaders: requestHeaders, cacheControl: cacheControl)
        SecurityHeaders.apply(to: &head.headerFields)
        return (head, body)
    }
}
