import Foundation
import TestSupport
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// A damaged file is found at start, not by the customer whose order lands on the bad page; an
/// empty one where a shop was expected is said out loud.
@Suite struct WorkshopStoreIntegrityTests {
    /// A shop's file with the root page of `wood_stock` scribbled over: the file still opens,
    /// and the damage shows only when that table is read (or checked).
    static func damagedShop(at path: String) async throws {
        do {
            let store = try WorkshopStore(path: path)
            try await store.setStock(of: .body(.koa), to: 7)
        }
        try await damageRootPage(ofTable: "wood_stock", inSQLiteFileAt: path)
    }

    @Test func aDamagedFileIsRefusedWithASentenceUnlessTheOperatorAsksToServeIt() async throws {
        try await withTemporaryDatabasePath { path in
            try await Self.damagedShop(at: path)
            #expect {
                _ = try WorkshopStore(path: path)
            } throws: { error in
                guard case .corrupt(let damaged, let problems) = error as? WorkshopStoreError else { return false }
                let sentence = (error as? WorkshopStoreError)?.description ?? ""
                return damaged == path && !problems.isEmpty && sentence.contains("is damaged (SQLite's integrity check")
                    && sentence.contains("--serve-corrupt-database")
            }
            let served = try SQLiteDatabase(path: path, servingCorrupt: true)
            #expect(!served.damage.isEmpty)
            #expect(!served.startedOnEmptyFile)
        }
    }

    @Test func aWholeFileOpensWithNoDamageAndAnEmptyOneIsToldAsSuch() async throws {
        try await withTemporaryDatabasePath { path in
            do {
                let store = try WorkshopStore(path: path)
                #expect(store.sqlite.damage.isEmpty)
                #expect(!store.sqlite.startedOnEmptyFile, "a new file is not an empty one found")
                try await store.setStock(of: .body(.koa), to: 7)
            }
            let reopened = try WorkshopStore(path: path)
            #expect(reopened.sqlite.damage.isEmpty)
            #expect(try await reopened.stock(of: .body(.koa)) == 7)
        }
        try await withTemporaryDatabasePath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let store = try WorkshopStore(path: path)
            #expect(store.sqlite.startedOnEmptyFile)
            #expect(try await store.stock(of: .body(.koa)) == WorkshopStore.initialStock[.body(.koa)])
        }
    }
}
