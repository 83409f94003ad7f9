import HTTPTypes

extension HTTPField.Name {
    // swift-format-ignore: NeverForceUnwrap
    /// Tells nginx-style proxies not to buffer an event stream.
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
    // swift-format-ignore: NeverForceUnwrap
    /// Set by the page's script on its `fetch` posts, so the server answers 204 instead of 303.
    static let xRequestedWith = HTTPField.Name("X-Requested-With")!
    // swift-format-ignore: NeverForceUnwrap
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    // swift-format-ignore: NeverForceUnwrap
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    // swift-format-ignore: NeverForceUnwrap
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    // swift-format-ignore: NeverForceUnwrap
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
