import ArgumentParser
import Foundation
import Logging
import LuthierLive
import LuthierWeb

/// `luthier serve` (the default): runs the shop until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the shop over HTTP (the default).")

    @Option(help: "The address to listen on.")
    var host = "0.0.0.0"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "The folder with the stylesheet, script and icons (default: the repository's Public/).")
    var `public`: String?

    @Option(help: "The folder with the Mustache templates (default: the repository's Templates/).")
    var templates: String?

    @Option(
        help:
            "The SQLite file holding the workshop's stock and orders (created if missing; ':memory:' for a throwaway).")
    var database = "luthier.sqlite"

    @Option(
        help:
            "A JSON exchange-rate provider answering {\"base\":\"USD\",\"rates\":{\"EUR\":0.83,…}}; without it the built-in rates are used."
    )
    var ratesURL: String?

    @Flag(
        help:
            "Make the workshop take the original app's times (1–2 s availability, …) so a demo shows the loading states."
    )
    var simulateLatency = false

    @Option(help: "Minutes a session may go unused before it is dropped.")
    var sessionIdleMinutes = 30

    @Option(help: "Live sessions at most; past it new visitors get 503 with Retry-After.")
    var maxSessions = 20_000

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard sessionIdleMinutes > 0 else { throw ValidationError("--session-idle-minutes must be at least 1.") }
        guard maxSessions > 0 else { throw ValidationError("--max-sessions must be at least 1.") }
        if let ratesURL {
            guard let url = URL(string: ratesURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("--rates-url must be an http(s) URL, e.g. http://127.0.0.1:9000/rates.")
            }
        }
    }

    func run() async throws {
        var logger = Logger(label: "luthier")
        logger.logLevel =
            ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let configuration = LuthierConfiguration(
            host: host,
            port: port,
            publicDirectory: try ResourceFolder.locate("Public", given: self.public),
            templatesDirectory: try ResourceFolder.locate("Templates", given: templates),
            sessionIdleTimeout: .seconds(sessionIdleMinutes * 60),
            maxSessions: maxSessions
        )
        let live = try LiveSystem(
            databasePath: database,
            ratesURL: ratesURL.flatMap(URL.init(string:)),
            simulateLatency: simulateLatency,
            logger: logger
        )
        let host = host
        let (app, _) = try await buildApplicationWithServices(
            configuration: configuration,
            environment: live.environment,
            logger: logger,
            onServerRunning: { port in
                for url in ServerAddresses.urls(host: host, port: port) {
                    print("Luthier is serving on \(url)")
                }
            }
        )
        do {
            try await app.runService()
        } catch {
            try await live.shutdown()
            throw error
        }
        try await live.shutdown()
    }
}
