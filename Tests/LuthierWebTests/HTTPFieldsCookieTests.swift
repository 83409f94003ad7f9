import HTTPTypes
import Hummingbird
import Testing

@testable import LuthierWeb

/// `HTTPFields.cookieValue(named:)` reads the session cookie without Hummingbird's `Cookies`; it
/// must find exactly what `Cookies` finds, on well-formed and odd headers alike.
@Suite("HTTPFields.cookieValue")
struct HTTPFieldsCookieTests {
    static let cases: [[String]] = [
        [],
        ["luthier_session=abc"],
        ["a=1; luthier_session=abc; b=2"],
        ["a=1;luthier_session=abc"],
        ["a=1", "luthier_session=abc"],
        ["luthier_session=first; luthier_session=second"],
        ["luthier_session=first", "luthier_session=second"],
        ["xluthier_session=no; luthier_sessionx=no"],
        ["luthier_session"],
        ["luthier_session="],
        ["luthier_session=a=b; c"],
        [";;  ; luthier_session=abc ;"],
        ["LUTHIER_SESSION=upper"],
        ["a=1; luthier_session = spaced"],
        ["a=1;\tluthier_session=tabbed"],
        ["a=1; luthier_session=caf\u{E9}; b=\u{1F3B8}"],
    ]

    @Test("finds what Hummingbird's Cookies finds", arguments: cases)
    func agreesWithHummingbird(_ lines: [String]) {
        var fields = HTTPFields()
        for line in lines { fields.append(HTTPField(name: .cookie, value: line)) }
        let expected = Cookies(from: lines)["luthier_session"]?.value
        #expect(fields.cookieValue(named: "luthier_session") == expected, "\(lines)")
    }

    @Test func findsTheSessionAmongOthers() {
        let fields: HTTPFields = [.cookie: "theme=dark; luthier_session=abc123; other=x"]
        #expect(fields.cookieValue(named: "luthier_session") == "abc123")
        #expect(fields.cookieValue(named: "missing") == nil)
    }
}
