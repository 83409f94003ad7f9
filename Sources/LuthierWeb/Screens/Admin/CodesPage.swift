import Foundation
import LuthierDomain
import LuthierFeatures

/// What the codes template shows.
struct CodesPage: Sendable {
    struct Row: Sendable {
        let code: String
        let percent: Int
        let expires: String
        let isValid: Bool
        let status: String
    }

    let rows: [Row]
    let isEmpty: Bool

    init(codes: [DiscountCode], now: Date) {
        rows = codes.map { code in
            let isValid = code.isValid(at: now)
            return Row(
                code: code.code, percent: code.percent,
                expires: code.expires.map(CheckoutOutput.format) ?? "Never", isValid: isValid,
                status: isValid ? "Works" : "Expired")
        }
        isEmpty = codes.isEmpty
    }
}
