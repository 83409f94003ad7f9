import Hummingbird

extension RouteCollection {
    /// A handler that answers a request with a response, as every route of a screen does.
    public typealias Handler = @Sendable (Request, Context) async throws -> Response

    /// A collection of routes given as a table: each path read with `get` and each path posted to
    /// with `post`, with its handler, so that a screen's routes read as one declaration. They are
    /// added GETs first, each table in its order (the router matches path and method together).
    public convenience init(get: KeyValuePairs<RouterPath, Handler>, post: KeyValuePairs<RouterPath, Handler> = [:]) {
        self.init(context: Context.self)
        for (path, handler) in get { self.get(path, use: handler) }
        for (path, handler) in post { self.post(path, use: handler) }
    }
}
