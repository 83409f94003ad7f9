import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Debian's nginx on a free loopback port in front of luthier instances, with docs/operating.md's
/// upstream ("Scaling out"): plain round robin, no sticky sessions. It is stopped by ``stop()``
/// and by its deinitializer, so a failed test leaves no nginx behind.
final class NginxBalancer {
    /// The nginx binary, when this machine has one (`Scripts/test` installs it).
    static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    let port: Int
    let directory: URL
    private let process: Process

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The upstream addresses nginx sent requests to, one per request, from its access log.
    var upstreamsUsed: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    private init(port: Int, directory: URL, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    deinit { stop() }

    /// Starts nginx over `instances` in `directory`, and returns once it answers `/healthz`.
    static func start(over instances: [LuthierProcess], in directory: URL, client: ShopClient) async throws
        -> NginxBalancer
    {
        guard let binary else { throw TestFailure("no nginx on this machine") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let servers = instances.map { "        server 127.0.0.1:\($0.port);" }.joined(separator: "\n")
        let folder = directory.path
        let config = """
            daemon off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 1024; }
            http {
                log_format upstream '$upstream_addr $status $request';
                access_log \(folder)/access.log upstream;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                upstream luthier {
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://luthier;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $http_host;
                        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                        proxy_buffering off;
                        proxy_read_timeout 1h;
                    }
                }
            }

            """
        let configFile = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-p", folder, "-c", configFile.path, "-e", "\(folder)/error.log"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let balancer = NginxBalancer(port: port, directory: directory, process: process)
        try await waitUntil("nginx answers on \(port)", limit: .seconds(10)) {
            guard process.isRunning else {
                let errors = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8))
                throw TestFailure("nginx ended: \(errors ?? "")")
            }
            return (try? await client.get(balancer.baseURL + "/healthz"))?.status == 200
        }
        return balancer
    }

    /// Ends nginx with `SIGTERM` (its fast shutdown: the master stops its worker, then exits).
    /// Not `SIGKILL`: that would orphan the worker, which keeps serving the port and holds the
    /// descriptor through which Foundation learns that the master ended, so waiting would hang.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }
}
