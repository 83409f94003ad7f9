import TestSupport

/// What a browser's cookie jar does for the session cookie when an order replaces it (the session
/// gets a new id): later requests carry the new value. Tests keep the value they first got; the
/// jar maps it to the newest. Only an order's answer is learnt from, so tests of an expired
/// session, whose cookie the server replaces with a new session's, still see the old one fail.
final class SessionCookieJar: Sendable {
    private let replacements = CookieReplacements()

    /// The newest value of a cookie first seen as `value`.
    func current(of value: String) -> String { replacements.newest(of: value) }

    /// The headers with the session cookie replaced by its newest value.
    func rewrite(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        headers.map { header in
            guard header.name.lowercased() == "cookie", let sent = Self.sessionCookie(in: header.value) else {
                return header
            }
            let newest = current(of: sent)
            guard newest != sent else { return header }
            return (header.name, header.value.replacingOccurrences(of: sent, with: newest))
        }
    }

    /// Learns a replacement: the request carried a session cookie and the answer set another.
    func learn(path: String, sent headers: [(name: String, value: String)], response: TestHTTPResponse) {
        guard path.hasPrefix("/checkout/order"),
            let cookie = headers.first(where: { $0.name.lowercased() == "cookie" }),
            let sent = Self.sessionCookie(in: cookie.value),
            let set = SetCookie(response), set.name == TestApp.cookieName, set.value != sent, !set.value.isEmpty
        else { return }
        replacements.record(sent, replacedBy: set.value)
    }

    /// Records that `old` was replaced by `new`.
    func record(_ old: String, replacedBy new: String) { replacements.record(old, replacedBy: new) }

    /// How many replacements it knows.
    var count: Int { replacements.count }

    /// Whether `value` has been replaced since.
    func isReplaced(_ value: String) -> Bool { replacements.isReplaced(value) }

    private static func sessionCookie(in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(TestApp.cookieName + "=") { return String(pair.dropFirst(TestApp.cookieName.count + 1)) }
        }
        return nil
    }
}
