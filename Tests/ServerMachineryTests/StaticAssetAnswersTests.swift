import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import ServerMachinery

@Suite("StaticAssetAnswers")
struct StaticAssetAnswersTests {
    static let cacheControl = "public, max-age=3600"

    /// A request as NIO's HTTP/1 decoder hands it on, which is what the answers read.
    static func request(_ path: String, _ fields: HTTPFields = [:], method: HTTPMethod = .GET) -> HTTPRequestHead {
        HTTPRequestHead(
            version: .http1_1, method: method, uri: path,
            headers: HTTPHeaders([("Host", "t")] + fields.map { ($0.name.rawName, $0.value) }))
    }

    /// The field lines of a head, order and the names' case aside.
    static func lines(_ head: HTTPResponse) -> [String] {
        head.headerFields.map { "\($0.name.canonicalName): \($0.value)" }.sorted()
    }

    static func lines(_ head: HTTPResponseHead) -> [String] {
        head.headers.map { "\($0.name.lowercased()): \($0.value)" }.sorted()
    }

    @Test("a ready answer is the middleware's answer, for every file, name, coding and method")
    func sameAsTheMiddleware() async throws {
        try await StaticAssetFixture.with { fixture in
            let catalog = try fixture.catalog()
            let answers = StaticAssetAnswers(catalog: catalog, cacheControl: Self.cacheControl)
            #expect(catalog.everyAsset.count == 2 * catalog.count)
            var answered = 0
            for (path, asset) in catalog.everyAsset {
                for accept in [nil, "gzip", "gzip, deflate, br", "identity", "br;q=1, gzip;q=0.5"] as [String?] {
                    for (method, nioMethod) in [(HTTPRequest.Method.get, HTTPMethod.GET), (.head, .HEAD)] {
                        var fields = HTTPFields()
                        if let accept { fields[.acceptEncoding] = accept }
                        let ready = try #require(
                            answers.answer(for: Self.request("/" + path + "?v=1", fields, method: nioMethod)))
                        var (head, body) = StaticAssetMiddleware<BasicRequestContext>.response(
                            for: asset, method: method, requestHeaders: fields, cacheControl: Self.cacheControl)
                        SecurityHeaders.apply(to: &head.headerFields)
                        #expect(Int(ready.head.status.code) == head.status.code)
                        #expect(Self.lines(ready.head) == Self.lines(head), "\(path) \(accept ?? "-") \(method)")
                        #expect(ready.body == body)
                        answered += 1
                    }
                }
            }
            #expect(answered == catalog.everyAsset.count * 10)
        }
    }

    @Test("what is not a plain request for a file by its name has no ready answer")
    func otherRequestsGoTheLongWay() async throws {
        try await StaticAssetFixture.with { fixture in
            let answers = StaticAssetAnswers(catalog: try fixture.catalog(), cacheControl: Self.cacheControl)
            #expect(answers.answer(for: Self.request("/css/site.css")) != nil)
            // Conditional: the middleware decides between 200 and 304.
            #expect(answers.answer(for: Self.request("/css/site.css", [.ifNoneMatch: "\"x\""])) == nil)
            // An escaped name, a file that is not there, a page, a post.
            #expect(answers.answer(for: Self.request("/css/site%2Ecss")) == nil)
            #expect(answers.answer(for: Self.request("/css/other.css")) == nil)
            #expect(answers.answer(for: Self.request("/")) == nil)
            #expect(answers.answer(for: Self.request("/css/site.css", method: .POST)) == nil)
            // Nothing acceptable: the middleware's 406.
            #expect(answers.answer(for: Self.request("/css/site.css", [.acceptEncoding: "identity;q=0"])) == nil)
            // Hidden files are in no catalog.
            #expect(answers.answer(for: Self.request("/.env")) == nil)
        }
    }
}
