import Foundation
import GRDB

/// The shop's SQLite file read by the test itself, through its own GRDB connection (a second
/// process to the server, as an operator's `sqlite3` would be): the stock, the orders and their
/// lines, as stored.
struct ShopDatabase {
    /// One stock line: `kind` is `body` or `fretboard`, `wood` its raw value.
    struct Wood: Hashable, Comparable, CustomStringConvertible {
        var kind: String
        var wood: String

        static func < (lhs: Wood, rhs: Wood) -> Bool { (lhs.kind, lhs.wood) < (rhs.kind, rhs.wood) }
        var description: String { "\(kind) \(wood)" }
    }

    struct Line: Hashable, Comparable, CustomStringConvertible {
        var shape: String
        var color: String
        var body: String
        var fretboard: String
        var quantity: Int

        static func < (lhs: Line, rhs: Line) -> Bool { lhs.description < rhs.description }
        var description: String { "\(quantity)× \(shape)-\(color)-\(body)-\(fretboard)" }
    }

    struct Order {
        var number: String
        var totalMinor: Int
        var lines: [Line]
    }

    /// The stock a new database is seeded with (docs/operating.md, "The workshop and its database").
    static let seededStock: [Wood: Int] = [
        Wood(kind: "body", wood: "mahogany"): 40,
        Wood(kind: "body", wood: "swampAsh"): 25,
        Wood(kind: "body", wood: "koa"): 6,
        Wood(kind: "body", wood: "blackLimba"): 3,
        Wood(kind: "fretboard", wood: "rosewood"): 50,
        Wood(kind: "fretboard", wood: "birdseyeMaple"): 12,
        Wood(kind: "fretboard", wood: "ebony"): 8,
        Wood(kind: "fretboard", wood: "blackLimba"): 2,
    ]

    let queue: DatabaseQueue

    init(_ file: URL) throws {
        var configuration = Configuration()
        configuration.label = "test-reader"
        // The server may be writing; wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        queue = try DatabaseQueue(path: file.path, configuration: configuration)
    }

    func stock() throws -> [Wood: Int] {
        try queue.read { db in
            var stock: [Wood: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, wood, quantity FROM wood_stock") {
                stock[Wood(kind: row["kind"], wood: row["wood"])] = row["quantity"]
            }
            return stock
        }
    }

    func orders() throws -> [String: Order] {
        try queue.read { db in
            var orders: [String: Order] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT number, total_minor FROM orders") {
                let number: String = row["number"]
                orders[number] = Order(number: number, totalMinor: row["total_minor"], lines: [])
            }
            let lines = try Row.fetchAll(
                db, sql: "SELECT * FROM order_lines ORDER BY order_number, position")
            for row in lines {
                let number: String = row["order_number"]
                let line = Line(
                    shape: row["shape"], color: row["color"], body: row["body"], fretboard: row["fretboard"],
                    quantity: row["quantity"])
                // A line without its order would be half an order: keep it visible to the checks.
                orders[number, default: Order(number: number, totalMinor: -1, lines: [])].lines.append(line)
            }
            return orders
        }
    }

    func orderCount() throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM orders") ?? 0 }
    }

    func integrityCheck() throws -> String {
        try queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }

    /// Every way the stored orders and stock disagree with `initial`: for each wood, what is in
    /// stock plus what the orders took must be what there was; and every order has lines and an
    /// `orders` row. Empty when all is well.
    static func violations(initial: [Wood: Int], stock: [Wood: Int], orders: [String: Order]) -> [String] {
        var taken: [Wood: Int] = [:]
        var problems: [String] = []
        for order in orders.values {
            if order.lines.isEmpty { problems.append("order \(order.number) has no lines") }
            if order.totalMinor < 0 { problems.append("lines of \(order.number) have no order row") }
            for line in order.lines {
                taken[Wood(kind: "body", wood: line.body), default: 0] += line.quantity
                taken[Wood(kind: "fretboard", wood: line.fretboard), default: 0] += line.quantity
            }
        }
        for wood in Set(initial.keys).union(stock.keys).union(taken.keys).sorted() {
            let left = stock[wood] ?? 0
            let used = taken[wood] ?? 0
            if left + used != initial[wood] ?? 0 {
                problems.append("\(wood): \(left) in stock + \(used) ordered ≠ \(initial[wood] ?? 0) at the start")
            }
            if left < 0 { problems.append("\(wood): negative stock \(left)") }
        }
        return problems
    }
}
