import Foundation
import Hummingbird
import Logging
import NIOCore

/// The request path's floor: a bare Hummingbird server, the same version the shop runs on, with
/// no middleware, no session and no store, answering `/healthz` and a page's compressed bytes
/// from memory. `luthier-load` starts it beside Luthier and nginx and measures each server's CPU
/// time per request in turns: what Luthier's `/healthz` costs beyond this is its middleware.
///
/// `luthier-floor --port N --folder DIR` serves `DIR/healthz` at `/healthz` and `DIR/page.html.gz`
/// at `/page.html` (as `Content-Encoding: gzip`), on 127.0.0.1.
@main
struct HummingbirdFloor {
    static func main() async throws {
        let arguments = CommandLine.arguments
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let port = value("--port").flatMap(Int.init), let folder = value("--folder") else {
            FileHandle.standardError.write(Data("usage: luthier-floor --port N --folder DIR\n".utf8))
            exit(64)
        }
        let healthz = bytes(of: folder + "/healthz")
        let page = bytes(of: folder + "/page.html.gz")

        let router = Router()
        router.get("/healthz") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: healthz))
        }
        router.get("/page.html") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8", .contentEncoding: "gzip", .vary: "Accept-Encoding",
                ],
                body: .init(byteBuffer: page))
        }
        var logger = Logger(label: "luthier-floor")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: logger)
        try await app.runService()
    }

    /// The file's bytes; a file that cannot be read ends the process with a sentence naming it
    /// (an error thrown out of `main` would end it with a trap and no word of why).
    static func bytes(of path: String) -> ByteBuffer {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("luthier-floor: cannot read \(path)\n".utf8))
            exit(66)
        }
        return ByteBuffer(bytes: data)
    }
}
