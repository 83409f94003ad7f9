import ArgumentParser

/// The `luthier` command: serving is the default; later tools sit beside it as subcommands.
@main
struct Luthier: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "luthier",
        abstract: "Luthier: a guitar configurator and shop, served live to every browser.",
        subcommands: [Serve.self, Stock.self, Orders.self, Codes.self, Journal.self, Analytics.self, Replay.self],
        defaultSubcommand: Serve.self
    )
}
