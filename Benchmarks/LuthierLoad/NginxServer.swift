import Foundation
import NIOCore

/// An nginx on loopback, a yardstick from a server built for serving bytes.
///
/// Two uses: a copy of `styles.css` and its `gzip -9` twin (``stylesheet(_:)``), the same bytes
/// precompressed (`gzip_static on`) as luthier's static files; and given answers byte for byte
/// (the pages phase puts luthier's own compressed page and `/healthz` body here), to measure what
/// the bytes alone cost on this machine, with no work behind them.
struct NginxServer {
    let process: ChildProcess
    let client: LoadHTTPClient

    /// The files to serve: a stylesheet's copy and its `gzip -9` twin.
    static func stylesheet(_ stylesheet: URL) throws -> [String: Data] {
        let plain = try Data(contentsOf: stylesheet)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("luthier-load-\(getpid())-css")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("styles.css")
        try plain.write(to: copy)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        gzip.arguments = ["gzip", "-9", "-k", "-n", copy.path]
        try gzip.run()
        gzip.waitUntilExit()
        guard gzip.terminationStatus == 0 else { throw LoadError.failure("gzip -9 failed for the nginx copy") }
        let compressed = try Data(contentsOf: folder.appendingPathComponent("styles.css.gz"))
        return ["styles.css": plain, "styles.css.gz": compressed]
    }

    /// Starts nginx on `port` serving `files` (a name → its bytes; a `NAME.gz` beside `NAME` is
    /// sent for `NAME` to a client that accepts gzip).
    static func start(
        binary: String, files served: [String: Data], folder: URL, port: Int, group: any EventLoopGroup
    ) async throws -> NginxServer {
        let files = FileManager.default
        let www = folder.appendingPathComponent("www")
        try? files.removeItem(at: www)
        try files.createDirectory(at: www, withIntermediateDirectories: true)
        for (name, bytes) in served {
            try bytes.write(to: www.appendingPathComponent(name))
        }
        let probe = served.keys.filter { !$0.hasSuffix(".gz") }.sorted().first ?? ""

        let temp = folder.path
        let config = """
            worker_processes 1;
            daemon off;
            pid \(temp)/nginx.pid;
            error_log \(temp)/error.log;
            events { worker_connections 4096; }
            http {
                access_log off;
                # Keep-alive as long as luthier's (which never closes an idle client first), so
                # both servers are measured on the same long-lived connections.
                keepalive_requests 100000000;
                keepalive_timeout 300s;
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                types { text/css css; text/html html; }
                server {
                    listen 127.0.0.1:\(port);
                    root \(www.path);
                    gzip_static on;
                    location / { }
                }
            }

            """
        let configURL = folder.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        let process = ChildProcess(
            name: "nginx", executable: binary,
            arguments: ["-p", temp, "-c", configURL.path, "-e", "\(temp)/error.log"],
            logURL: folder.appendingPathComponent("stdout.log"))
        try process.start()
        let client = LoadHTTPClient(group: group, host: "127.0.0.1", port: port)
        if try await process.answers(client, "/\(probe)") { return NginxServer(process: process, client: client) }
        let errors = (try? String(contentsOfFile: "\(temp)/error.log", encoding: .utf8)) ?? ""
        await process.stop()
        throw LoadError.failure(
            "nginx did not start: \(errors.split(separator: "\n").suffix(3).joined(separator: " "))")
    }
}
