import Foundation
import GRDB

/// Scribbles over the root page of `table` in the SQLite file at `path`: the file still opens, and
/// the damage shows only when that table is read (or the file checked). What a failing disk or a
/// careless copy leaves, for the tests of how the shop refuses a damaged database.
package func damageRootPage(ofTable table: String, inSQLiteFileAt path: String) async throws {
    let root = try await DatabaseQueue(path: path).read { db in
        try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]) ?? 0
    }
    guard root > 0, let file = FileHandle(forUpdatingAtPath: path) else {
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    defer { try? file.close() }
    try file.seek(toOffset: UInt64((root - 1) * 4_096 + 8))
    try file.write(contentsOf: Data(repeating: 0xff, count: 64))
}
