import HTTPTypes
import NIOCore

/// The answer to a plain `GET` of each static file, in each coding, built once at start-up.
///
/// Answering the stylesheet, most of the server's own time went into building the same head for
/// every request: seven fields and the security headers, each value checked again. A request
/// that names a file exactly (no escapes) and asks for nothing conditional is answered with the
/// head made here; anything else (`If-None-Match`, an escaped path, an encoding refused) takes
/// ``StaticAssetMiddleware/response(for:method:requestHeaders:cacheControl:)``, the function that
/// built these heads, so both answer alike.
struct StaticAssetAnswers: Sendable {
    struct Answer: Sendable {
        let head: HTTPResponse
        let body: ByteBuffer
    }

    /// Per request path (`/styles.css`, `/styles.<hash>.css`): the answer per coding, and whether
    /// the file has a gzip variant (what negotiation needs).
    private let answers: [String: (byCoding: [ContentCoding: Answer], gzipAvailable: Bool)]
    /// For the requests that take the long way.
    private let catalog: StaticAssetCatalog
    private let cacheControl: String

    init(catalog: StaticAssetCatalog, cacheControl: String) {
        var answers: [String: (byCoding: [ContentCoding: Answer], gzipAvailable: Bool)] = [:]
        for (path, asset) in catalog.everyAsset {
            var byCoding: [ContentCoding: Answer] = [:]
            for coding in ContentCoding.allCases {
                let (head, body) = Self.response(
                    for: asset, method: .get, requestHeaders: [.acceptEncoding: coding.rawValue],
                    cacheControl: cacheControl)
                if let body { byCoding[coding] = Answer(head: head, body: body) }
            }
            answers["/" + path] = (byCoding, asset.gzip != nil)
        }
        self.answers = answers
        self.catalog = catalog
        self.cacheControl = cacheControl
    }

    /// The answer to `request` if it asks for a static file (`GET` or `HEAD`): the ready one, or
    /// the long way's; nil when it names no file, and the router answers it.
    func response(for request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard let path = Self.filePath(of: request) else { return nil }
        if let ready = ready(at: path, for: request) { return ready }
        guard let asset = catalog.asset(forRequestPath: path) else { return nil }
        return Self.response(
            for: asset, method: request.method, requestHeaders: request.headerFields, cacheControl: cacheControl)
    }

    /// The head and body (nil for `HEAD`) for `request`, or nil when it is not a plain request for
    /// a file by its exact name.
    func answer(for request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        Self.filePath(of: request).flatMap { ready(at: $0, for: request) }
    }

    private func ready(at path: String, for request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.headerFields[.ifNoneMatch] == nil, let file = answers[path],
            let coding = ContentCoding.negotiate(
                acceptEncoding: request.headerFields.joinedValues(.acceptEncoding), gzipAvailable: file.gzipAvailable),
            let answer = file.byCoding[coding]
        else { return nil }
        return (answer.head, request.method == .head ? nil : answer.body)
    }

    /// The path a `GET` or `HEAD` asks for, without its query; nil for any other method.
    private static func filePath(of request: HTTPRequest) -> String? {
        guard request.method == .get || request.method == .head, let target = request.path else { return nil }
        return String(target.firstIndex(of: "?").map { target[..<$0] } ?? target[...])
    }

    /// The middleware's answer with the security headers every response carries.
    private static func response(
        for asset: StaticAssetCatalog.Asset, method: HTTPRequest.Method, requestHeaders: HTTPFields,
        cacheControl: String
    ) -> (head: HTTPResponse, body: ByteBuffer?) {
        var (head, body) = StaticAssetMiddleware<LuthierRequestContext>.response(
            for: asset, method: method, requestHeaders: requestHeaders, cacheControl: cacheControl)
        SecurityHeaders.apply(to: &head.headerFields)
        return (head, body)
    }
}
