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

    init(catalog: StaticAssetCatalog, cacheControl: String) {
        var answers: [String: (byCoding: [ContentCoding: Answer], gzipAvailable: Bool)] = [:]
        for (path, asset) in catalog.everyAsset {
            var byCoding: [ContentCoding: Answer] = [:]
            for coding in ContentCoding.allCases {
                var (head, body) = StaticAssetMiddleware<LuthierRequestContext>.response(
                    for: asset, method: .get, requestHeaders: [.acceptEncoding: coding.rawValue],
                    cacheControl: cacheControl)
                SecurityHeaders.apply(to: &head.headerFields)
                if let body { byCoding[coding] = Answer(head: head, body: body) }
            }
            answers["/" + path] = (byCoding, asset.gzip != nil)
        }
        self.answers = answers
    }

    /// The head and body (nil for `HEAD`) for `request`, or nil when it is not a plain request for
    /// a file by its exact name.
    func answer(for request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.method == .get || request.method == .head, let target = request.path,
            request.headerFields[.ifNoneMatch] == nil
        else { return nil }
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? target[...]
        guard let file = answers[String(path)],
            let coding = ContentCoding.negotiate(
                acceptEncoding: request.headerFields.joinedValues(.acceptEncoding), gzipAvailable: file.gzipAvailable),
            let answer = file.byCoding[coding]
        else { return nil }
        return (answer.head, request.method == .head ? nil : answer.body)
    }
}
