import Foundation
import LuthierDomain
import LuthierFeatures
import PostgresNIO
import SQLMachinery

/// The guitars being built, told between instances (the kiosk's showcase): `NOTIFY` on a channel
/// of their own, each tagged with the instance that announced it, so that none hears its own.
extension PostgreSQLDatabase {
    /// The channel builds are told on: one per schema.
    var buildsChannel: String { channel("builds") }

    /// Tells every instance that `instance` has a customer building `guitar`.
    func announceBuild(_ guitar: Guitar, from instance: String) async throws {
        let payload = instance + " " + String(decoding: try JSONEncoder().encode(guitar), as: UTF8.self)
        try await notify(payload, on: buildsChannel)
    }

    /// The guitars other instances than `instance` announce, for as long as the stream is read.
    func builds(notFrom instance: String) -> AsyncStream<Guitar> {
        notifications(on: buildsChannel, listening: nil) { Self.build(told: $0, notFrom: instance) }
    }

    /// The guitar a notification's `payload` tells, unless `instance` announced it (or it is not one).
    static func build(told payload: String, notFrom instance: String) -> Guitar? {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != instance else { return nil }
        return try? JSONDecoder().decode(Guitar.self, from: Data(parts[1].utf8))
    }
}

extension PostgreSQLDatabase {
    /// The channel instances tell their kiosk counters on: one per schema.
    var countersChannel: String { channel("counters") }

    /// Tells every instance `instance`'s counters.
    func announceCounters(_ counters: KioskCounters, from instance: String) async throws {
        try await notify(Self.payload(of: counters, from: instance), on: countersChannel)
    }

    /// The counters other instances than `instance` announce, for as long as the stream is read.
    func counters(notFrom instance: String) -> AsyncStream<InstanceCounters> {
        notifications(on: countersChannel, listening: nil) { Self.counters(told: $0, notFrom: instance) }
    }

    /// `instance guitarsInCarts liveSessions`.
    static func payload(of counters: KioskCounters, from instance: String) -> String {
        "\(instance) \(counters.guitarsInCarts) \(counters.liveSessions)"
    }

    /// The counters a notification's `payload` tells, unless `instance` announced them.
    static func counters(told payload: String, notFrom instance: String) -> InstanceCounters? {
        let parts = payload.split(separator: " ")
        guard parts.count == 3, parts[0] != instance, let carts = Int(parts[1]), let sessions = Int(parts[2]),
            carts >= 0, sessions >= 0
        else { return nil }
        return InstanceCounters(
            instance: String(parts[0]), counters: KioskCounters(guitarsInCarts: carts, liveSessions: sessions))
    }
}

extension ShowcaseClient {
    /// The showcase shared by the instances on one PostgreSQL database; this instance is known by
    /// a random name of its own.
    public static func live(postgres database: PostgreSQLDatabase) -> ShowcaseClient {
        let instance = UUID().uuidString
        return ShowcaseClient(
            announce: { guitar in try await database.announceBuild(guitar, from: instance) },
            builtElsewhere: { database.builds(notFrom: instance) },
            announceCounters: { counters in try await database.announceCounters(counters, from: instance) },
            countersElsewhere: { database.counters(notFrom: instance) })
    }
}
