import Foundation
import Hummingbird
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The discount codes, for the shop's admin: every code with its terms and whether it still
/// works, a form to add one, and a button to end one now. A change reaches every cart at once:
/// the next code a customer types, and a code already in a cart, are judged by the new terms.
struct AdminCodesController: Sendable {
    let admin: AdminController
    let workshop: WorkshopAdminClient
    let now: @Sendable () -> Date

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/admin/codes": codesPage], post: ["/admin/codes": add, "/admin/codes/:code/expire": expire])
    }

    /// `GET /admin/codes`.
    @Sendable func codesPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let codes = try await AdminController.reading("The discount codes") { try await workshop.discountCodes() }
        return admin.responses.page(
            admin.renderer.render(CodesPage(codes: codes, now: now()), template: "admin-codes"), for: request)
    }

    /// `POST /admin/codes` with `code`, `percent` (1–100) and optionally `expires` (YYYY-MM-DD,
    /// the UTC day from which it no longer works).
    @Sendable func add(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let fields = try await admin.forms.namedFields(["code", "percent", "expires"], of: request)
        let code = (fields["code"] ?? "").trimmingCharacters(in: .whitespaces)
        let percent = (fields["percent"] ?? "").trimmingCharacters(in: .whitespaces)
        let expires = (fields["expires"] ?? "").trimmingCharacters(in: .whitespaces)
        let parsed: DiscountCode
        do {
            parsed = try DiscountCode(configuration: "\(code)=\(percent)%" + (expires.isEmpty ? "" : "@\(expires)"))
        } catch {
            throw UserFacingError(
                .unprocessableContent, Self.fieldSentence(code: code, percent: percent, expires: expires))
        }
        if let expiry = parsed.expires, expiry <= now() {
            throw UserFacingError(
                .unprocessableContent, "Field 'expires' must be a day after today (UTC), or empty for no expiry.")
        }
        do {
            _ = try await workshop.addDiscountCode(parsed)
        } catch let refusal as DiscountCodeRefusal {
            throw UserFacingError(.conflict, refusal.description)
        } catch {
            throw UserFacingError(.serviceUnavailable, "The code cannot be added right now.", retryAfter: 5)
        }
        admin.logger.notice(
            "Admin added a discount code",
            metadata: [
                "code": "\(parsed.code)", "percent": "\(parsed.percent)",
                "expires": "\(parsed.expires.map(CheckoutOutput.format) ?? "never")",
            ])
        return admin.responses.seeOther("/admin/codes")
    }

    /// `POST /admin/codes/{code}/expire`: the code stops working now, in every cart.
    @Sendable func expire(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let code = context.parameters.get("code") ?? ""
        try await admin.forms.requireNoFields(request, action: "Expiring a code")
        do {
            _ = try await workshop.expireDiscountCode(code)
        } catch let refusal as DiscountCodeRefusal {
            if case .noSuchCode = refusal {
                throw UserFacingError(.notFound, "There is no discount code \(code.prefix(32)).")
            }
            throw UserFacingError(.conflict, refusal.description)
        } catch {
            throw UserFacingError(.serviceUnavailable, "The code cannot be expired right now.", retryAfter: 5)
        }
        admin.logger.notice("Admin expired a discount code", metadata: ["code": "\(code)"])
        return admin.responses.seeOther("/admin/codes")
    }

    /// Which field of a new code is wrong, and what is allowed.
    static func fieldSentence(code: String, percent: String, expires: String) -> String {
        if (try? DiscountCode(configuration: "\(code)=10%")) == nil {
            return "Field 'code' must be 1–32 letters, digits, '-' or '_'."
        }
        if (try? DiscountCode(configuration: "X=\(percent)%")) == nil {
            return "Field 'percent' must be a whole number from 1 to 100."
        }
        return "Field 'expires' must be a date YYYY-MM-DD (the UTC day it stops working), or empty for no expiry."
    }
}
