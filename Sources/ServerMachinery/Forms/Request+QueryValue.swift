import Hummingbird

extension Request {
    /// The value of query parameter `name`, nil when it is not sent; refused (`422`, naming it)
    /// when it is sent more than once, as a form field sent twice is: which of two values was
    /// meant is the client's to say, not the first one's to win.
    package func queryValue(_ name: String) throws(UserFacingError) -> Substring? {
        let values = uri.queryParameters[values: Substring(name)]
        guard values.count <= 1 else {
            throw UserFacingError(
                .unprocessableContent, "Query parameter '\(name)' was sent more than once; send it once.")
        }
        return values.first
    }
}
