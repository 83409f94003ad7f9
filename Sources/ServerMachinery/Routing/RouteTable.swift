import HTTPTypes
import Hummingbird
import Synchronization

/// Every route's path and method, recorded as the routes are added, so that a request for a path
/// the shop has, with a method that path does not take, is answered `405` with `Allow` rather than
/// `404`: the router matches path and method together and cannot tell the two apart.
public final class RouteTable: Sendable {
    private let routes = Mutex<[(path: RouterPath, method: HTTPRequest.Method)]>([])

    public init() {}

    package func record(_ path: RouterPath, _ method: HTTPRequest.Method) {
        routes.withLock { $0.append((path, method)) }
    }

    /// The methods the routes of `path` take, in a stable order, with `HEAD` wherever `GET` is
    /// taken (the router answers it from the `GET` route). Empty for a path the shop does not have.
    public func allowedMethods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods = Set(
            routes.withLock { routes in
                routes.filter { Self.matches($0.path, segments) }.map(\.method)
            })
        if methods.contains(.get) { methods.insert(.head) }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }

    private static func matches(_ route: RouterPath, _ segments: [Substring]) -> Bool {
        let elements = route.components
        if elements.last == .recursiveWildcard {
            let fixed = elements.dropLast()
            return segments.count >= fixed.count && zip(fixed, segments).allSatisfy { $0 ~= $1 }
        }
        return elements.count == segments.count && zip(elements, segments).allSatisfy { $0 ~= $1 }
    }
}

/// Adds routes to a router and records each in a `RouteTable` on the way.
package struct RecordingRouter<Context: RequestContext>: RouterMethods {
    package let router: Router<Context>
    package let table: RouteTable

    package init(router: Router<Context>, table: RouteTable) {
        self.router = router
        self.table = table
    }

    @discardableResult package func on<Responder: HTTPResponder>(
        _ path: RouterPath,
        method: HTTPRequest.Method,
        responder: Responder
    ) -> Self where Responder.Context == Context {
        table.record(path, method)
        router.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult package func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}
