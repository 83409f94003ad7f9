import Foundation
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// The names of the statements PostgreSQL keeps prepared: one per text and types of values,
/// and no more than the limit, past which a statement goes unnamed.
@Suite struct PostgresKeptStatementsTests {
    @Test func eachTextAndTypesIsNamedOnceUpToTheLimit() {
        let kept = PostgresKeptStatements()
        let name = kept.name(of: "SELECT $1", types: "i")
        #expect(name != nil)
        #expect(kept.name(of: "SELECT $1", types: "i") == name)
        // The same text with a value of another type is another statement to PostgreSQL.
        #expect(kept.name(of: "SELECT $1", types: "t") != name)
        #expect(kept.name(of: "SELECT $1 ", types: "i") != name)
        for index in 3..<PostgresKeptStatements.limit {
            #expect(kept.name(of: "SELECT \(index), $1", types: "i") != nil)
        }
        #expect(kept.name(of: "SELECT 'one too many', $1", types: "i") == nil)
        #expect(kept.name(of: "SELECT $1", types: "i") == name)
    }
}

/// A statement the shop sends with values is kept prepared on the connection that sent it, and
/// answers as it did unnamed. Runs when `LUTHIER_TEST_POSTGRES_URL` names a server.
@Suite(.enabled(if: StoreBackend.postgresURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct PostgresKeptStatementTests {
    @Test func aStatementWithValuesIsPreparedOnceOnItsConnection() async throws {
        let url = try #require(StoreBackend.postgresURL)
        try await PostgresTestSchema.with(url: url, now: MovableNow(Date(timeIntervalSince1970: 1_800_000_000))) {
            instance in
            let statement: SQLStatement = "SELECT \(41) + 1 AS answer, \("text") AS text, \(true) AS yes"
            let (answers, prepared) = try await instance.database.read { connection in
                var answers: [SQLRow] = []
                for _ in 0..<3 { answers += try await connection.rows(statement) }
                let prepared = try await connection.rows(
                    "SELECT statement FROM pg_prepared_statements WHERE name LIKE \("luthier_%")")
                return (answers, try prepared.map { row -> String in try row["statement"] })
            }
            #expect(answers.count == 3)
            for answer in answers {
                #expect(try answer["answer"] as Int == 42)
                #expect(try answer["text"] as String == "text")
                #expect(try answer["yes"] as Bool == true)
            }
            // The statement itself once (and the question asking for them, which has a value too).
            #expect(prepared.filter { $0.hasPrefix("SELECT $1 + 1 AS answer") }.count == 1)
        }
    }
}
