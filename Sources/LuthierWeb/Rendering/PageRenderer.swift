import Foundation
import Mustache

/// Renders the Mustache templates in `Templates/`: parsed once at start-up, shared by the full
/// page and by every event-stream fragment, so the two can never drift apart.
public struct PageRenderer: Sendable {
    /// Templates the server cannot run without; their absence is a start-up error, not a 500 later.
    public static let requiredTemplates = [
        "layout", "builder", "error",
        "fragments/guitar-picture", "fragments/guitar-description", "fragments/guitar-price",
        "fragments/picker", "fragments/checkout-button", "checkout", "order",
        "fragments/checkout-parts", "fragments/checkout-details", "fragments/checkout-shipping",
        "fragments/checkout-currency", "fragments/checkout-totals", "fragments/checkout-order",
        "fragments/checkout-lines", "cart", "fragments/cart-badge", "fragments/cart-lines",
        "fragments/cart-summary", "fragments/cart-actions", "admin-analytics", "fragments/order-stages",
        "kiosk", "fragments/kiosk-showcase", "fragments/kiosk-orders", "fragments/kiosk-board",
        "fragments/kiosk-counters",
    ]

    public enum LoadError: Error, CustomStringConvertible {
        case directoryMissing(String)
        case templateMissing(name: String, directory: String)
        case parse(String)

        public var description: String {
            switch self {
            case .directoryMissing(let path):
                "Templates folder not found at '\(path)'; pass --templates PATH."
            case .templateMissing(let name, let directory):
                "Template '\(name).mustache' is missing from '\(directory)'."
            case .parse(let message):
                "A template could not be parsed: \(message)"
            }
        }
    }

    private let library: MustacheLibrary

    public init(directory: String) async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LoadError.directoryMissing(directory)
        }
        do {
            library = try await MustacheLibrary(directory: directory)
        } catch {
            throw LoadError.parse(String(describing: error))
        }
        for name in Self.requiredTemplates where library.getTemplate(named: name) == nil {
            throw LoadError.templateMissing(name: name, directory: directory)
        }
    }

    /// Renders a template; the names used by the server are checked at start-up, so an unknown
    /// name is a programming error reported as an empty string rather than a crash.
    public func render(_ context: some Sendable, template: String) -> String {
        library.render(context, withTemplate: template) ?? ""
    }
}
