import ArgumentParser
import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive

/// `luthier orders`: the orders from a shell, as `/admin/orders` finds, shows and changes them.
struct Orders: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, show, cancel or mark collected the shop's orders.",
        discussion: """
            A change made here is in the database at once; a running server's screens show it at \
            the workshop's next change, or live when it is made at /admin/orders.
            """,
        subcommands: [List.self, Show.self, Cancel.self, Collect.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The newest orders, at one stage or all.")

        @OptionGroup var shop: ShopDatabase

        @Option(help: ArgumentHelp("Only orders at this stage: \(Orders.stageNames).", valueName: "stage"))
        var stage: String?

        @Option(help: "Only orders whose number contains this (LU-7K3M9Q, or part of it).")
        var number: String?

        @Option(help: "How many orders to print.")
        var limit = 50

        func validate() throws {
            if let stage, OrderStatus(rawValue: stage) == nil {
                throw ValidationError("--stage '\(stage)' is not a stage; use one of \(Orders.stageNames).")
            }
            guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        }

        func run() async throws {
            let orders = try await shop.withAdmin { admin in
                try await admin.orders(stage.flatMap(OrderStatus.init(rawValue:)), number?.uppercased(), limit)
            }
            guard !orders.isEmpty else {
                print("No order matches.")
                return
            }
            print(
                padded("ORDER", 11) + padded("PLACED", 26) + rightAligned("GUITARS", 8) + "  " + padded("STAGE", 18)
                    + "TOTAL")
            for order in orders {
                print(
                    padded(order.number, 11) + padded(CheckoutOutput.format(order.placedAt), 26)
                        + rightAligned("\(order.guitarCount)", 8) + "  " + padded(order.status.label, 18)
                        + order.quote.total.formatted())
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One order: its guitars, amounts and stage history.")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: "The order number, such as LU-7K3M9Q.")
        var number: String

        func run() async throws {
            let number = number.uppercased()
            let (order, history) = try await shop.withAdmin { workshop in
                (try await workshop.order(number), try await workshop.stageHistory(number))
            }
            guard let order else { throw refuse("There is no order \(number).") }
            print("Order \(order.number): \(order.status.label)")
            print("Placed \(CheckoutOutput.format(order.placedAt)), \(order.shipping.name)")
            for line in order.lines { print("  \(line.quantity) × \(line.guitar.description)") }
            print("Total \(order.quote.total.formatted()) (\(order.currency.code))")
            print("History:")
            for entry in history {
                print(
                    "  \(CheckoutOutput.format(entry.startedAt))  \(entry.status.label)"
                        + (entry.note.map { ": \($0)" } ?? ""))
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel an order still at wood selection; its woods go back to stock.")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: "The order number, such as LU-7K3M9Q.")
        var number: String

        @Option(help: "Why, in 1–200 characters (kept in the order's history).")
        var note: String

        func run() async throws {
            guard let note = StockAdjustment.note(note) else {
                throw ValidationError(
                    "--note must say why, in 1–\(StockAdjustment.longestNote) characters on one line; "
                        + "\(StockAdjustment.noteProblem(note) ?? "it is not one").")
            }
            do {
                let order = try await shop.withAdmin { admin in
                    try await admin.cancelOrder(
                        number.uppercased(), note)
                }
                print("\(order.number) is cancelled; its woods are back in stock.")
            } catch let refusal as OrderChangeRefusal {
                throw refuse(refusal.description)
            }
        }
    }

    struct Collect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a pickup order that is ready for pickup collected.")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: "The order number, such as LU-7K3M9Q.")
        var number: String

        func run() async throws {
            do {
                let order = try await shop.withAdmin { admin in
                    try await admin.markCollected(
                        number.uppercased())
                }
                print("\(order.number) is collected.")
            } catch let refusal as OrderChangeRefusal {
                throw refuse(refusal.description)
            }
        }
    }

    static var stageNames: String { OrderStatus.allCases.map(\.rawValue).joined(separator: ", ") }
}
