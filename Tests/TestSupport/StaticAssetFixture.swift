import Foundation
import Hummingbird
import NIOCore
import ServerMachinery

/// A throw-away folder laid out like `Public/`, with a sibling file outside it that must never be reachable.
package struct StaticAssetFixture {
    package let base: URL
    package let publicDirectory: URL

    /// Repetitive CSS well above the 1 KiB gzip threshold, so gzip clearly wins.
    package static let largeCSS: String = (0..<200).map { ".rule-\($0) { color: #a0522d; margin: 0 auto; }\n" }.joined()
    package static let tinyText = "hi\n"
    /// PNG signature followed by compressible filler: big and compressible, yet must never be gzipped.
    package static let pngBytes: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0x41, count: 4_096)
    package static let secretText = "root-level file reachable only as /secret.txt\n"
    package static let outsideText = "OUTSIDE-THE-PUBLIC-FOLDER\n"
    package static let eventBody = String(repeating: "event: tick\ndata: hello\n\n", count: 100)

    package init() throws {
        base = FileManager.default.temporaryDirectory
            .appendingPathComponent("luthier-static-\(UUID().uuidString)", isDirectory: true)
        publicDirectory = base.appendingPathComponent("Public", isDirectory: true)
        let css = publicDirectory.appendingPathComponent("css", isDirectory: true)
        try FileManager.default.createDirectory(at: css, withIntermediateDirectories: true)
        try Data(Self.largeCSS.utf8).write(to: css.appendingPathComponent("site.css"))
        try Data(Self.tinyText.utf8).write(to: publicDirectory.appendingPathComponent("tiny.txt"))
        try Data(Self.pngBytes).write(to: publicDirectory.appendingPathComponent("logo.png"))
        try Data(Self.secretText.utf8).write(to: publicDirectory.appendingPathComponent("secret.txt"))
        try Data("hidden\n".utf8).write(to: publicDirectory.appendingPathComponent(".env"))
        try Data(Self.outsideText.utf8).write(to: base.appendingPathComponent("outside.txt"))
        try Data(Self.outsideText.utf8).write(to: base.appendingPathComponent("Package.swift"))
    }

    package func remove() {
        try? FileManager.default.removeItem(at: base)
    }

    package func catalog() throws -> StaticAssetCatalog {
        try StaticAssetCatalog(directory: publicDirectory.path)
    }

    /// The middleware in front of a router that also has an event-stream route, as the real app will.
    package func application(cacheControl: String = "public, max-age=3600") throws -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: StaticAssetMiddleware(catalog: try catalog(), cacheControl: cacheControl))
        router.get("/events") { _, _ -> Response in
            Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: Self.eventBody))
            )
        }
        // As in the real app, the channel handler answers first over a socket; `.router` tests
        // reach the middleware alone.
        let answers = StaticAssetAnswers(catalog: try catalog(), cacheControl: cacheControl)
        return Application(
            router: router,
            server: .layeredHTTP1(
                beforeConversion: { [StaticAssetChannelHandler(answers: answers)] }, afterConversion: { [] })
        )
    }

    /// Runs `body` with a fresh fixture and always deletes the folder afterwards.
    package static func with<Value>(_ body: (StaticAssetFixture) async throws -> Value) async throws -> Value {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        return try await body(fixture)
    }
}
