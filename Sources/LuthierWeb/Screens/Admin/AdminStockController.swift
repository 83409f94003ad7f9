import Foundation
import Hummingbird
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The workshop's wood store, for the shop's admin: every wood with what is on the shelf, held by
/// open orders and used, the latest adjustments, and a form per wood to book a restock or a
/// correction with a note. Booking tells every open checkout at once (`WorkshopAdminClient`'s
/// live wrapping), so a restocked wood is orderable again on every customer's screen.
struct AdminStockController: Sendable {
    let admin: AdminController
    let workshop: WorkshopAdminClient

    /// How many adjustments the page lists.
    static let adjustmentsShown = 20

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/admin/stock": stockPage], post: ["/admin/stock": adjust])
    }

    /// `GET /admin/stock`.
    @Sendable func stockPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let page = try await AdminController.reading("The stock") {
            StockPage(
                levels: try await workshop.stockLevels(),
                adjustments: try await workshop.stockAdjustments(Self.adjustmentsShown))
        }
        return admin.responses.page(admin.renderer.render(page, template: "admin-stock"), for: request)
    }

    /// `POST /admin/stock` with `wood` (`body/blackLimba`), `change` (a whole number, + to restock,
    /// − to correct) and `note`: books it and goes back to the stock page.
    @Sendable func adjust(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let fields = try await admin.forms.namedFields(["wood", "change", "note"], of: request)
        guard let woodID = fields["wood"], let wood = StockedWood(id: woodID) else {
            throw UserFacingError(
                .unprocessableContent,
                "Field 'wood' must name a stocked wood; allowed values: \(StockedWood.allIDs).")
        }
        let changeText = (fields["change"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let change = Int(changeText.hasPrefix("+") ? String(changeText.dropFirst()) : changeText) else {
            throw UserFacingError(
                .unprocessableContent,
                "Field 'change' must be a whole number from -\(StockLevel.largestChange) to "
                    + "\(StockLevel.largestChange), not 0 (+ adds to the stock, - takes away).")
        }
        let note = try FormReader.note(fields["note"])
        let booked: StockAdjustment
        do {
            booked = try await workshop.adjustStock(wood, change, note)
        } catch let refusal as StockRefusal {
            throw UserFacingError(.unprocessableContent, refusal.description)
        } catch {
            throw UserFacingError(.serviceUnavailable, "The stock cannot be changed right now.", retryAfter: 5)
        }
        admin.logger.notice(
            "Admin adjusted stock",
            metadata: [
                "wood": "\(wood.id)", "change": "\(change)", "inStock": "\(booked.inStockAfter)", "note": "\(note)",
            ])
        return admin.responses.seeOther("/admin/stock#\(Self.anchor(wood))")
    }

    /// The id of a wood's row on the page (`stock-body-blackLimba`).
    static func anchor(_ wood: StockedWood) -> String { "stock-\(wood.kind)-\(wood.wood)" }
}
