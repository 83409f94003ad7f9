import Foundation
import LuthierDomain
import Synchronization

/// The discount codes the shop offers right now, shared by every cart: the admin adds and
/// expires codes while the shop runs, and the next code a customer types is judged against the
/// book as it is then.
///
/// One value behind a lock, replaced whole (the database is the record; the book is its copy for
/// the carts, which judge codes synchronously). Injected, never global: tests make their own.
public final class DiscountBook: Sendable, ExpressibleByArrayLiteral {
    private let codes: Mutex<[DiscountCode]>

    public init(_ codes: [DiscountCode] = []) {
        self.codes = Mutex(codes)
    }

    public convenience init(arrayLiteral codes: DiscountCode...) {
        self.init(codes)
    }

    /// Every code, as last replaced.
    public var current: [DiscountCode] { codes.withLock { $0 } }

    /// Replaces every code (after the admin changed one in the database).
    public func replace(with codes: [DiscountCode]) {
        self.codes.withLock { $0 = codes }
    }

    /// `code` as the book has it now, if it works at `now`: a code the admin expired after a cart
    /// applied it no longer applies.
    public func valid(_ code: DiscountCode?, at now: Date) -> DiscountCode? {
        code.map(latest).flatMap { $0.isValid(at: now) ? $0 : nil }
    }

    /// `code` with the terms the book has for it now (an expiry the admin set since a cart applied
    /// it), or as it is when the book has no such code.
    public func latest(_ code: DiscountCode) -> DiscountCode {
        codes.withLock { codes in CartFeature.code(typed: code.code, among: codes) } ?? code
    }
}
