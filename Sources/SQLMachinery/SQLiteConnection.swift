import Dispatch
import GRDB
import Synchronization

/// An ``SQLConnection`` on SQLite: an asynchronous body run on the thread where GRDB lends its
/// `Database` for one access (a read, or a write transaction).
///
/// GRDB hands out a database only inside a synchronous closure, on a thread of its own (never a
/// Swift concurrency thread). The operations are written asynchronously, once for both
/// databases; so the access's closure ``serve(_:)``s: the connection is the body's task executor,
/// and the closure runs the body's jobs and its statements, one after another, until the body
/// ``finish(_:)``es. The closure returning commits the transaction; throwing the body's error
/// rolls it back. The body therefore runs as a synchronous transaction would, start to commit on
/// one thread, never waiting for a Swift concurrency thread while it holds SQLite's write lock;
/// and no Swift concurrency thread waits while the database is busy.
package final class SQLiteConnection: SQLConnection, TaskExecutor {
    package var dialect: SQLDialect { .sqlite }

    private enum Job {
        /// A statement, with where its answer goes.
        case run(@Sendable (Database) -> Void, fail: @Sendable (any Error) -> Void)
        /// A step of the body's task.
        case task(UnownedJob)
        case finish((any Error)?)
    }

    private struct State {
        var jobs: [Job] = []
        /// Why no statement runs any more (the access failed or ended), once it is so.
        var closed: (any Error)?
    }

    private let state = Mutex(State())
    /// Counts the jobs waiting, for ``serve(_:)``'s thread to sleep on.
    private let waiting = DispatchSemaphore(value: 0)

    /// Runs `body` on a connection served by `access`, which must call ``serve(_:)`` with the
    /// database GRDB lends and then `done` with how the access ended (`writer.asyncWrite`, say).
    package static func with<T: Sendable>(
        access: (SQLiteConnection, _ done: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void,
        _ body: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T {
        let connection = SQLiteConnection()
        let ended = FirstAnswer<Void>()
        access(connection) { outcome in
            if case .failure(let error) = outcome { connection.close(error) }
            ended.answer(outcome)
        }
        // The body finishes on GRDB's thread, so that the commit (or the rollback) follows its
        // last statement at once: finished after the task left this executor, it would wait for
        // a Swift concurrency thread, with SQLite's write lock held.
        let result: T
        do {
            result = try await withTaskExecutorPreference(connection) {
                do {
                    let result = try await body(connection)
                    connection.finish(nil)
                    return result
                } catch {
                    connection.finish(error)
                    throw error
                }
            }
        } catch {
            _ = try? await ended.value
            throw error
        }
        try await ended.value
        return result
    }

    /// Runs the body's statements on `db` until it finishes; rethrows what the body threw.
    package func serve(_ db: Database) throws {
        while true {
            waiting.wait()
            let job = state.withLock { $0.jobs.removeFirst() }
            switch job {
            case .run(let work, _):
                work(db)
            case .task(let job):
                job.runSynchronously(on: asUnownedTaskExecutor())
            case .finish(let error):
                // Steps of the task still to come run elsewhere from now on.
                close(error ?? Finished())
                if let error { throw error }
                return
            }
        }
    }

    /// Takes a step of the body's task, for ``serve(_:)``; once the access has ended (or never
    /// began), on a thread of Dispatch's, where its statements fail at once.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if enqueue(.task(job)) != nil { runElsewhere(job) }
    }

    /// Runs a step of the task on a thread of Dispatch's: the access no longer serves it.
    private func runElsewhere(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Why a statement sent after the body finished is refused.
    private struct Finished: Error {}

    package func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await perform { db in try Self.rows(statement, in: db) }
    }

    package func tell(_ payload: String, on channel: SQLChannel) async throws {}

    package func rows(
        after writes: [SQLStatement], then statement: SQLStatement, telling payload: String, on channel: SQLChannel
    ) async throws -> [SQLRow] {
        for write in writes { try await run(write) }
        return try await rows(statement)
    }

    package func holding(_ lock: SQLWriteLock) -> SQLStatement { "1 = 1" }

    /// Runs `statement` on `db` (for the one-statement accesses, which need no serving).
    package static func rows(_ statement: SQLStatement, in db: Database) throws -> [SQLRow] {
        let (sql, values) = statement.rendered(placeholder: SQLDialect.sqlite.placeholder)
        let prepared = try db.makeStatement(sql: sql)
        let arguments = StatementArguments(values.map(Self.databaseValue))
        guard prepared.columnCount > 0 else {
            try prepared.execute(arguments: arguments)
            return []
        }
        let columns = SQLColumns(prepared.columnNames)
        return try Row.fetchAll(prepared, arguments: arguments).map { row in
            SQLRow(columns: columns, values: (0..<row.count).map { Self.value(row[$0] as DatabaseValue) })
        }
    }

    private static func databaseValue(_ value: SQLValue) -> DatabaseValue {
        switch value {
        case .integer(let integer): integer.databaseValue
        case .text(let text): text.databaseValue
        case .boolean(let boolean): (boolean ? 1 : 0).databaseValue
        case .null: .null
        }
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .int64(let integer): .integer(integer)
        case .string(let text): .text(text)
        case .null: .null
        // The tables hold neither; read as text so that a stray one is reported, not lost.
        case .double(let double): .text("\(double)")
        case .blob(let data): .text("\(data.count) bytes")
        }
    }

    private func perform<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let job = Job.run(
                { db in continuation.resume(with: Result { try work(db) }) },
                fail: { continuation.resume(throwing: $0) })
            if let closed = enqueue(job) { continuation.resume(throwing: closed) }
        }
    }

    /// Ends the access: commits when `error` is nil, rolls back with it otherwise.
    private func finish(_ error: (any Error)?) {
        _ = enqueue(.finish(error))
    }

    /// Queues `job` for ``serve(_:)``, or says why the access no longer takes one.
    private func enqueue(_ job: Job) -> (any Error)? {
        let closed = state.withLock { state -> (any Error)? in
            if let closed = state.closed { return closed }
            state.jobs.append(job)
            return nil
        }
        if closed == nil { waiting.signal() }
        return closed
    }

    /// The access ended without serving (the database could not be had, say): every statement
    /// waiting and every later one fails with `error`.
    private func close(_ error: any Error) {
        let abandoned = state.withLock { state -> [Job] in
            state.closed = error
            defer { state.jobs = [] }
            return state.jobs
        }
        for job in abandoned {
            switch job {
            case .run(_, let fail): fail(error)
            case .task(let job): runElsewhere(job)
            case .finish: break
            }
        }
    }
}
