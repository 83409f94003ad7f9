import Foundation
import NIOCore

/// The request path's floor (`luthier-floor`, built beside this tool): bare Hummingbird serving
/// Luthier's own `/healthz` body and compressed page from memory, started for one phase.
struct FloorServer {
    let process: ChildProcess
    let client: LoadHTTPClient

    /// `luthier-floor` next to this tool's own binary, if it was built.
    static var binary: String? {
        let path = URL(fileURLWithPath: RepositoryPaths.defaultLuthierBinary()).deletingLastPathComponent()
            .appendingPathComponent("luthier-floor").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static func start(
        binary: String, healthz: Data, compressedPage: Data, folder: URL, port: Int, group: any EventLoopGroup
    ) async throws -> FloorServer {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try healthz.write(to: folder.appendingPathComponent("healthz"))
        try compressedPage.write(to: folder.appendingPathComponent("page.html.gz"))
        let process = ChildProcess(
            name: "luthier-floor", executable: binary, arguments: ["--port", "\(port)", "--folder", folder.path],
            logURL: folder.appendingPathComponent("floor.log"))
        try process.start()
        let client = LoadHTTPClient(group: group, host: "127.0.0.1", port: port)
        if try await process.answers(client, "/healthz") { return FloorServer(process: process, client: client) }
        await process.stop()
        throw LoadError.failure("luthier-floor did not start: \(process.logTail(lines: 3))")
    }
}
