import Foundation

/// A guitar as the forms name it.
struct GuitarChoice: Sendable, Hashable {
    var shape = "casual"
    var color = "natural"
    var body = "mahogany"
    var fretboard = "rosewood"

    static let shapes = ["casual", "chunky", "longV", "sharpV"]
    static let colors = ["natural", "sky", "dusk", "earth"]
    /// Plentiful woods are picked more often than the scarce ones, so a storm has both orders that
    /// go through and orders that fight over the last pieces.
    static let bodies = ["mahogany", "mahogany", "swampAsh", "swampAsh", "koa", "blackLimba"]
    static let fretboards = ["rosewood", "rosewood", "birdseyeMaple", "birdseyeMaple", "ebony", "blackLimba"]

    static func random() -> GuitarChoice {
        GuitarChoice(
            shape: shapes.randomElement() ?? "casual",
            color: colors.randomElement() ?? "natural",
            body: bodies.randomElement() ?? "mahogany",
            fretboard: fretboards.randomElement() ?? "rosewood"
        )
    }

    var form: String { "shape=\(shape)&color=\(color)&body=\(body)&fretboard=\(fretboard)" }
    /// The cart's line id.
    var lineID: String { "\(shape)-\(color)-\(body)-\(fretboard)" }

    func line(quantity: Int) -> ShopDatabase.Line {
        ShopDatabase.Line(shape: shape, color: color, body: body, fretboard: fretboard, quantity: quantity)
    }
}

/// A customer's steps over HTTP, each checked for the status a working shop gives.
struct Customer: Sendable {
    let client: ShopClient
    let server: String

    /// Posts and insists on `204` (the script's success).
    func post(_ path: String, form: String = "", cookie: String) async throws {
        let response = try await client.post(server + path, form: form, cookie: cookie)
        guard response.status == 204 else { throw UnexpectedAnswer(path: path, response: response) }
    }

    /// A new session with `guitar` built and checked out; returns its cookie.
    func checkedOut(_ guitar: GuitarChoice) async throws -> String {
        let cookie = try await client.newSession(on: server)
        try await post("/build", form: guitar.form, cookie: cookie)
        try await post("/checkout", cookie: cookie)
        return cookie
    }

    /// A new session whose cart holds `lines` (a guitar may come twice: its quantity adds up),
    /// checked out as a cart; returns its cookie and the lines the order should hold.
    func cartCheckedOut(_ guitars: [(GuitarChoice, quantity: Int)]) async throws -> (String, [ShopDatabase.Line]) {
        let cookie = try await client.newSession(on: server)
        var quantities: [(GuitarChoice, Int)] = []
        for (guitar, quantity) in guitars {
            try await post("/build", form: guitar.form, cookie: cookie)
            try await post("/cart/items", cookie: cookie)
            for _ in 1..<max(quantity, 1) {
                try await post("/cart/lines/\(guitar.lineID)/increment", cookie: cookie)
            }
            if let index = quantities.firstIndex(where: { $0.0 == guitar }) {
                quantities[index].1 += quantity
            } else {
                quantities.append((guitar, quantity))
            }
        }
        try await post("/cart/checkout", cookie: cookie)
        return (cookie, quantities.map { $0.0.line(quantity: $0.1) })
    }

    /// `POST /checkout/order`, answered however the server answers.
    func order(cookie: String, timeout: Duration = .seconds(20)) async throws -> ShopResponse {
        try await client.post(server + "/checkout/order", cookie: cookie, timeout: timeout)
    }
}

struct UnexpectedAnswer: Error, CustomStringConvertible {
    var path: String
    var response: ShopResponse
    var description: String { "POST \(path) answered \(response)" }
}

/// What a customer must never read in an error: the server's internals.
func leaksInternals(_ text: String) -> Bool {
    let lowered = text.lowercased()
    return ["sqlite", "grdb", "database", ".swift", "error:", "errno", "stack", "fatal", "databaseerror"]
        .contains { lowered.contains($0) }
}
