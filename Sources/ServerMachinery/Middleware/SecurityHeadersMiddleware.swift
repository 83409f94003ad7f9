import HTTPTypes
import Hummingbird
import NIOHTTP1

/// Headers that keep the page from being framed, sniffed or made to run injected script.
/// Behind a trusted TLS proxy, also `Strict-Transport-Security`, so the browser never again
/// tries the shop over plain HTTP.
package struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    package let origin: RequestOrigin

    package init(origin: RequestOrigin) {
        self.origin = origin
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws
        -> Response
    {
        var response = try await next(request, context)
        SecurityHeaders.apply(to: &response.headers)
        if origin.isSecure(request) { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        return response
    }
}

/// The security headers every response carries, whoever answers it (the router's middleware, or
/// the static-file handler in front of the router).
package enum SecurityHeaders {
    /// `'inline-speculation-rules'` lets a page say which pages to prefetch in an inline
    /// `<script type="speculationrules">`, and runs no other inline script.
    package static var contentSecurityPolicy: String {
        "default-src 'self'; script-src 'self' 'inline-speculation-rules'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    }

    /// Made once: a field made from a string checks every byte of its value, and the policy alone
    /// is two hundred bytes, on every answer.
    private static let fields: [HTTPField] = [
        HTTPField(name: .contentSecurityPolicy, value: contentSecurityPolicy),
        HTTPField(name: .xContentTypeOptions, value: "nosniff"),
        HTTPField(name: .referrerPolicy, value: "same-origin"),
        HTTPField(name: .xFrameOptions, value: "DENY"),
    ]

    /// Sets every field, except a policy the answer brings of its own: a guitar's picture is an
    /// SVG document with a stricter one (nothing may load, its own style applies).
    package static func apply(to headers: inout HTTPFields) {
        for field in fields where field.name != .contentSecurityPolicy || headers[.contentSecurityPolicy] == nil {
            headers[fields: field.name] = [field]
        }
    }

    /// The same fields on NIO's headers, for an answer a channel handler writes itself.
    package static func apply(to headers: inout HTTPHeaders) {
        for field in fields { headers.replaceOrAdd(name: field.name.rawName, value: field.value) }
    }
}
