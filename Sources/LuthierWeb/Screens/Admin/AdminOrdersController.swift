import Foundation
import Hummingbird
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The orders, for the shop's admin: found by number or listed by stage, each opened with its
/// lines, amounts in its currency and stage history; cancelled while still at wood selection (its
/// woods go back to stock, and its customer's page says so live), or marked collected.
struct AdminOrdersController: Sendable {
    let admin: AdminController
    let workshop: WorkshopAdminClient

    /// How many orders a list shows.
    static let listLimit = 50

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/admin/orders": ordersPage, "/admin/orders/:number": orderPage],
            post: ["/admin/orders/:number/cancel": cancel, "/admin/orders/:number/collect": collect])
    }

    /// `GET /admin/orders[?stage=…][&number=…]`: the newest orders, at one stage or all, whose
    /// number contains what was typed.
    @Sendable func ordersPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let query = request.uri.queryParameters
        var stage: OrderStatus?
        if let text = query.get("stage"), !text.isEmpty {
            guard let status = OrderStatus(rawValue: text) else {
                throw UserFacingError(
                    .badRequest,
                    "Query 'stage' cannot be '\(text.prefix(40))'; allowed values: "
                        + OrderStatus.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            stage = status
        }
        let number = try Self.numberSearch(query.get("number"))
        let orders = try await AdminController.reading("The orders") {
            try await workshop.orders(stage, number, Self.listLimit)
        }
        let page = OrdersPage(orders: orders, stage: stage, number: number ?? "", limit: Self.listLimit)
        return admin.responses.page(admin.renderer.render(page, template: "admin-orders"), for: request)
    }

    /// `GET /admin/orders/{number}`.
    @Sendable func orderPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let number = try Self.number(in: context)
        let found = try await AdminController.reading("The order") {
            (order: try await workshop.order(number), history: try await workshop.stageHistory(number))
        }
        guard let order = found.order else { throw UserFacingError(.notFound, "There is no order \(number).") }
        let page = AdminOrderPage(order: order, history: found.history)
        return admin.responses.page(admin.renderer.render(page, template: "admin-order"), for: request)
    }

    /// `POST /admin/orders/{number}/cancel` with `note`: only before its woods are cut.
    @Sendable func cancel(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let number = try Self.number(in: context)
        let fields = try await admin.forms.namedFields(["note"], of: request)
        let note = try FormReader.note(fields["note"])
        let order = try await changing { try await workshop.cancelOrder(number, note) }
        admin.logger.notice(
            "Admin cancelled an order",
            metadata: ["order": "\(order.number)", "guitars": "\(order.guitarCount)", "note": "\(note)"])
        return admin.responses.seeOther("/admin/orders/\(order.number)")
    }

    /// `POST /admin/orders/{number}/collect`: a pickup order handed over.
    @Sendable func collect(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let number = try Self.number(in: context)
        try await admin.forms.requireNoFields(request, action: "Marking an order collected")
        let order = try await changing { try await workshop.markCollected(number) }
        admin.logger.notice("Admin marked an order collected", metadata: ["order": "\(order.number)"])
        return admin.responses.seeOther("/admin/orders/\(order.number)")
    }

    /// Runs an order change, telling a refusal as 404 or 409 with its sentence.
    private func changing(_ change: () async throws -> Order) async throws(UserFacingError) -> Order {
        do {
            return try await change()
        } catch let refusal as OrderChangeRefusal {
            if case .noSuchOrder = refusal { throw UserFacingError(.notFound, refusal.description) }
            throw UserFacingError(.conflict, refusal.description)
        } catch {
            throw UserFacingError(.serviceUnavailable, "The order cannot be changed right now.", retryAfter: 5)
        }
    }

    /// The order number in the path, upper-cased: `LU-` and six of the order alphabet.
    static func number(in context: LuthierRequestContext) throws(UserFacingError) -> String {
        let raw = context.parameters.get("number") ?? ""
        let number = raw.uppercased()
        guard number.utf8.count == 9, number.hasPrefix("LU-"), number.dropFirst(3).allSatisfy(isOrderCharacter)
        else {
            throw UserFacingError(.notFound, "There is no order \(raw.prefix(20)).")
        }
        return number
    }

    /// What was typed to find an order by number, upper-cased: letters, digits and `-` only (nil
    /// when nothing was typed).
    static func numberSearch(_ text: String?) throws(UserFacingError) -> String? {
        let typed = (text ?? "").trimmingCharacters(in: .whitespaces).uppercased()
        guard !typed.isEmpty else { return nil }
        guard typed.count <= 9, typed.allSatisfy({ $0 == "-" || isOrderCharacter($0) })
        else {
            throw UserFacingError(
                .badRequest,
                "Query 'number' must be part of an order number such as LU-7K3M9Q: up to 9 letters, digits or '-'.")
        }
        return typed
    }

    private static func isOrderCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber)
    }
}
