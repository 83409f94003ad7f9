import ArgumentParser
import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive

/// `luthier codes`: the discount codes from a shell, as `/admin/codes` lists and changes them.
struct Codes: AsyncParsableCommand {
    /// How often a running server reads the codes again (`Serve` sets it), so that a code changed
    /// here reaches it; the commands' messages say so.
    static let refreshSeconds = 2

    static let configuration = CommandConfiguration(
        abstract: "List, add or expire the shop's discount codes.",
        discussion: """
            A running server takes a code added or expired here within \(refreshSeconds) seconds (it reads \
            the codes again that often); a change made at /admin/codes reaches every cart at once.
            """,
        subcommands: [List.self, Add.self, Expire.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every code, oldest first, and whether it works now.")

        @OptionGroup var shop: ShopDatabase

        func run() async throws {
            let codes = try await shop.withAdmin { admin in try await admin.discountCodes() }
            guard !codes.isEmpty else {
                print("The shop offers no discount code.")
                return
            }
            let now = Date()
            print(padded("CODE", 34) + rightAligned("OFF", 5) + "  " + padded("STOPS WORKING", 26) + "NOW")
            for code in codes {
                print(
                    padded(code.code, 34) + rightAligned("\(code.percent)%", 5) + "  "
                        + padded(code.expires.map(CheckoutOutput.format) ?? "never", 26)
                        + (code.isValid(at: now) ? "works" : "expired"))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a code.", discussion: "Example: luthier codes add SPRING15=15%@2027-06-01")

        @OptionGroup var shop: ShopDatabase

        @Argument(
            help: ArgumentHelp(
                "CODE=PERCENT% or CODE=PERCENT%@YYYY-MM-DD (the UTC day it stops working).", valueName: "code"))
        var code: String

        func run() async throws {
            let parsed: DiscountCode
            do {
                parsed = try DiscountCode(configuration: code)
            } catch {
                throw ValidationError(error.description)
            }
            // As the admin's form: a code that has stopped working already would take its name for good.
            if let expiry = parsed.expires, expiry <= Date() {
                throw ValidationError(
                    "\(parsed.code) would stop working on \(CheckoutOutput.format(expiry)), which has passed; "
                        + "give a day after today (UTC), or none.")
            }
            do {
                _ = try await shop.withAdmin { admin in try await admin.addDiscountCode(parsed) }
                print("Added \(parsed.label).")
            } catch let refusal as DiscountCodeRefusal {
                throw refuse(refusal.description)
            }
        }
    }

    struct Expire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a code now.")

        @OptionGroup var shop: ShopDatabase

        @Argument(help: "The code (any case).")
        var code: String

        func run() async throws {
            do {
                _ = try await shop.withAdmin { admin in try await admin.expireDiscountCode(code) }
                print("\(code) no longer works; running servers stop taking it within \(Codes.refreshSeconds) seconds.")
            } catch let refusal as DiscountCodeRefusal {
                throw refuse(refusal.description)
            }
        }
    }
}
