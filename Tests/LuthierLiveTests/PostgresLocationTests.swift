import Foundation
import Logging
import Testing

@testable import LuthierLive
@testable import SQLMachinery

@Suite struct PostgresLocationTests {
    @Test func aFullURLIsReadAndItsDescriptionHasNoPassword() throws {
        let location = try PostgresLocation(url: "postgres://shop:s%40cret@db.lan:6543/luthier?sslmode=require")
        #expect(location.host == "db.lan")
        #expect(location.port == 6543)
        #expect(location.username == "shop")
        #expect(location.password == "s@cret")
        #expect(location.database == "luthier")
        #expect(location.tls == .require)
        #expect(location.description == "postgres://shop@db.lan:6543/luthier")
        #expect(!location.description.contains("cret"))
    }

    @Test func portDatabaseAndTLSHaveLibpqsDefaults() throws {
        let location = try PostgresLocation(url: "postgresql://shop@127.0.0.1")
        #expect(location.port == 5432)
        #expect(location.database == "shop")
        #expect(location.password == nil)
        #expect(location.tls == .prefer)
        #expect(PostgresLocation.isPostgres("postgres://x@y/z"))
        #expect(!PostgresLocation.isPostgres("luthier.sqlite"))
        #expect(!PostgresLocation.isPostgres("./postgres://odd-file-name"))
    }

    @Test(arguments: [
        ("postgres://@host/db", "names no user"),
        ("postgres://user@/db", "names no host"),
        ("postgres://user@host:0/db", "port outside"),
        ("postgres://user@host/db?sslmode=verify-full", "sslmode 'verify-full'"),
        ("postgres://user@host/db?application_name=x", "'application_name'"),
        ("mysql://user@host/db", "must look like"),
    ])
    func aBadURLIsRefusedWithASentence(url: String, says: String) {
        #expect {
            try PostgresLocation(url: url)
        } throws: { error in
            let sentence = "\(error)"
            return sentence.contains(says) && sentence.hasPrefix("The PostgreSQL URL ") && sentence.hasSuffix(".")
        }
    }

    /// No server is needed: nothing listens on port 1 of loopback. The pool alone would retry
    /// for a minute and report only its circuit breaker; the probe fails at once with the cause.
    @Test func aDatabaseThatIsNotThereFailsAtOnceWithItsReason() async throws {
        var location = try PostgresLocation(url: "postgres://nobody:secret@127.0.0.1:1/none?sslmode=disable")
        location.schema = nil
        let store = PostgreSQLDatabase(location: location, logger: .quiet)
        await #expect {
            try await store.migrate()
        } throws: { error in
            guard case WorkshopStoreError.cannotOpen(let path, let reason) = error else { return false }
            return path == "postgres://nobody@127.0.0.1:1/none" && reason.contains("refused")
                && !"\(error)".contains("secret")
        }
    }
}
