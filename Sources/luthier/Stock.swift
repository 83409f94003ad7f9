import ArgumentParser
import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive

/// `luthier stock`: the wood store from a shell, as `/admin/stock` shows and changes it.
struct Stock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the wood stock, or book a restock or correction with a note.",
        discussion: """
            A running server reads stock from the database, so a change made here counts at its next \
            order; open checkouts are told of a change live only when it is made at /admin/stock.
            """,
        subcommands: [List.self, Adjust.self, History.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every wood: in stock, reserved by orders in the workshop, used by finished guitars.")

        @OptionGroup var shop: ShopDatabase

        func run() async throws {
            let levels = try await shop.withAdmin { admin in try await admin.stockLevels() }
            print(Stock.table(levels), terminator: "")
        }
    }

    struct Adjust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Book a change of one wood's stock: + to restock, - to correct.",
            discussion:
                "Example: luthier stock adjust body/blackLimba --change +3 --note \"Delivery from Tonewood Co.\"")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: ArgumentHelp("The wood: \(StockedWood.allIDs).", valueName: "wood"))
        var wood: String

        // Unconditional, so that "-2" is read as the value and not as an option.
        @Option(
            parsing: .unconditional, help: ArgumentHelp("Pieces to add (+3) or take away (-2).", valueName: "change"))
        var change: String

        @Option(help: "Why, in 1–200 characters (kept with the change).")
        var note: String

        func run() async throws {
            guard let stocked = StockedWood(id: wood) else {
                throw ValidationError("'\(wood)' is not a stocked wood; use one of \(StockedWood.allIDs).")
            }
            guard let amount = Int(change.hasPrefix("+") ? String(change.dropFirst()) : change) else {
                throw ValidationError("'\(change)' is not a whole number such as +3 or -2.")
            }
            guard let note = StockAdjustment.note(note) else {
                throw ValidationError(
                    "--note must say why, in 1–\(StockAdjustment.longestNote) characters on one line; "
                        + "\(StockAdjustment.noteProblem(note) ?? "it is not one").")
            }
            do {
                let booked = try await shop.withAdmin { admin in
                    try await admin.adjustStock(
                        stocked, amount, note)
                }
                print(
                    "\(booked.wood.stockName): \(booked.change > 0 ? "+" : "")\(booked.change), \(booked.inStockAfter) in stock."
                )
            } catch let refusal as StockRefusal {
                throw refuse(refusal.description)
            }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The latest stock adjustments, newest first.")

        @OptionGroup var shop: ShopDatabase

        @Option(help: "How many adjustments to print.")
        var limit = 20

        func run() async throws {
            let adjustments = try await shop.withAdmin { admin in try await admin.stockAdjustments(limit) }
            guard !adjustments.isEmpty else {
                print("No adjustment has been booked yet.")
                return
            }
            for adjustment in adjustments {
                let change = adjustment.change > 0 ? "+\(adjustment.change)" : "\(adjustment.change)"
                print(
                    "\(CheckoutOutput.format(adjustment.madeAt))  \(padded(adjustment.wood.id, 24)) "
                        + "\(rightAligned(change, 6)) → \(rightAligned("\(adjustment.inStockAfter)", 5))  \(adjustment.note)"
                )
            }
        }
    }

    /// The levels as aligned columns with a header.
    static func table(_ levels: [StockLevel]) -> String {
        var text =
            padded("WOOD", 24) + rightAligned("IN STOCK", 10) + rightAligned("RESERVED", 10) + rightAligned("USED", 8)
            + "\n"
        for level in levels {
            text +=
                padded(level.wood.id, 24) + rightAligned("\(level.inStock)", 10)
                + rightAligned("\(level.reserved)", 10) + rightAligned("\(level.taken)", 8) + "\n"
        }
        return text
    }
}
