import Foundation
import Mustache
import NIOCore
import ServerMachinery

/// Renders the Mustache templates in `Templates/`: parsed once at start-up, shared by the full
/// page and by every event-stream fragment, so the two can never drift apart.
public struct PageRenderer: Sendable {
    /// Templates the server cannot run without; their absence is a start-up error, not a 500 later.
    public static let requiredTemplates =
        [
            "layout", "builder", "guide", "journal", "error", "checkout", "order", "cart", "admin-analytics",
            "admin-sign-in",
            "kiosk",
            "inspect", "admin", "admin-stock", "admin-orders", "admin-order", "admin-codes", "admin-incidents",
            "admin-incident",
            "fragments/order-stages", "fragments/inspector-lanes", "fragments/inspector-marble",
            "fragments/inspector-clock",
            "fragments/admin-nav",
        ] + SessionFragments.table.templates + KioskFragments.table.templates + JournalFragments.table.templates

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
    /// Fragments, shared by every session and stream that shows the same thing.
    private let fragments = RenderCache<String>(maxEntries: 4096, maxBytes: 32 << 20) { $0.utf8.count }
    /// Whole pages, ready to send: a reload or a second tab costs a lookup, not a render.
    /// (A page's gzip segments, once made, add about a quarter to the bytes it is counted for.)
    private let pages = RenderCache<RenderedPage>(maxEntries: 1024, maxBytes: 64 << 20) { $0.heldBytes }

    /// The files of `Public/` the templates link, each as a partial `asset/<name>` that writes its
    /// address: fingerprinted (`/styles.<hash>.css`) when the catalog has it, so a page always
    /// links the current file and browsers may cache it for ever.
    public static let linkedAssets = [
        "styles.css", "app.js", "favicon.svg", "events-worker.js", "stream-client.js",
    ]

    /// - Parameters:
    ///   - assetURL: the address to link a file of `Public/` by (the catalog's fingerprinted one);
    ///     by default its plain name.
    ///   - hiddenStreamClose: how long a browser's tabs may all be hidden before its streams close
    ///     (nil: never), written into every page for its script as the partial `setting/hidden-close`
    ///     (milliseconds, 0 for never). The shop's default is its configuration's.
    public init(
        directory: String, assetURL: (String) -> String? = { _ in nil }, hiddenStreamClose: Duration? = nil
    ) async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw LoadError.directoryMissing(directory)
        }
        do {
            var library = try await MustacheLibrary(directory: directory)
            for name in Self.linkedAssets {
                try library.register(assetURL(name) ?? "/\(name)", named: "asset/\(name)")
            }
            let hiddenClose = hiddenStreamClose.map { $0.components.seconds * 1_000 } ?? 0
            try library.register("\(hiddenClose)", named: "setting/hidden-close")
            self.library = library
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

    /// Renders a template from a value that is all it shows, once per distinct value: the result
    /// is remembered (bounded) and shared by everyone who shows the same thing.
    public func render<Context: Hashable & Sendable>(cached context: Context, template: String) -> String {
        fragments.value(template: template, key: context) { render(context, template: template) }
    }

    /// As `render(cached:template:)`, for a context that is costly to build (it draws pictures):
    /// `key` must determine everything `context` shows, and `context` runs only on a miss.
    public func render<Key: Hashable & Sendable>(
        template: String, key: Key, context: () -> some Sendable
    ) -> String {
        fragments.value(template: template, key: key) { render(context(), template: template) }
    }

    /// A whole page, plain and compressed, rendered once per distinct `key` (which must determine
    /// everything the page shows); `context` runs only on a miss.
    func page<Key: Hashable & Sendable>(
        template: String, key: Key, context: () -> some Sendable
    ) -> RenderedPage {
        pages.value(template: template, key: key) {
            RenderedPage(ByteBuffer(string: render(context(), template: template)))
        }
    }

    /// How the caches are doing: entries held, their bytes, lookups found and rendered.
    public var cacheStatistics:
        (
            fragments: (entries: Int, bytes: Int, hits: Int, misses: Int),
            pages: (entries: Int, bytes: Int, hits: Int, misses: Int)
        )
    {
        (fragments.statistics, pages.statistics)
    }
}
