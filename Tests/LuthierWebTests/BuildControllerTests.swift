import LuthierDomain
import NIOCore
import TestSupport
import Testing

@testable import LuthierWeb

@Suite("BuildController over HTTP")
struct BuildControllerTests {
    static let defaultDescription = "Natural Casual with Mahogany body and Rosewood fretboard"

    /// Every option's label as the design lists them, in display order.
    static let pricedNames: [String: [String]] = [
        "shape": ["Casual", "Chunky", "Long V (+$75)", "Sharp V (+$100)"],
        "color": ["Natural", "Sky (+$150)", "Dusk", "Earth (+$50)"],
        "body": ["Mahogany", "Black Limba (+$150)", "Swamp Ash (+$80)", "Koa (+$100)"],
        "fretboard": ["Rosewood", "Birdseye Maple (+$80)", "Ebony (+$100)", "Black Limba (+$120)"],
    ]

    static let defaultChecked: [String: [String]] = [
        "shape": ["casual"], "color": ["natural"], "body": ["mahogany"], "fretboard": ["rosewood"],
    ]

    // MARK: GET /

    @Test("GET / renders the default builder and issues a session cookie")
    func firstVisit() async throws {
        try await TestApp.run { app in
            let response = try await app.get()
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-store")
            let page = BuilderPageSnapshot(html: response.text)
            #expect(page.html.contains("Build your guitar"))
            #expect(page.description == Self.defaultDescription)
            #expect(page.price == "$2,000")
            #expect(page.checkoutLabel == "Checkout ($2,000)")
            for (field, names) in Self.pricedNames {
                for name in names {
                    #expect(page.html.contains(">\(name)</label>"), "\(field): \(name)")
                }
            }
            #expect(page.checkedValues == Self.defaultChecked)
            for field in GuitarField.allCases {
                #expect(page.radioValues(field.rawValue) == field.allowedValues)
            }

            let cookie = try #require(SetCookie(response))
            #expect(cookie.name == "luthier_session")
            #expect(cookie.isWellFormedSessionID, "\(cookie.value)")
            #expect(cookie.attributes["path"] == "/")
            #expect(cookie.attributes["samesite"]?.lowercased() == "lax")
            #expect(cookie.attributes["httponly"] == "")
            // Kept across browser restarts for as long as the server keeps the session (30 days).
            #expect(cookie.attributes["max-age"] == String(30 * 24 * 3_600))
            // A page alone makes no session: it costs nothing until it acts.
            #expect(app.services.registry.count == 0)
            let again = try await app.get(cookie: cookie.value)
            #expect(again.headers["Set-Cookie"].isEmpty, "the issued id is kept")
            // Its first post makes the session, under the cookie it already has.
            let post = try await app.scriptPost(form: "color=sky", cookie: cookie.value)
            #expect(post.status == 204)
            #expect(post.headers["Set-Cookie"].isEmpty)
            #expect(app.services.registry.count == 1)
            #expect(app.liveSession(cookie.value) != nil)
        }
    }

    @Test("a returning visitor keeps its session: no new cookie, its own state")
    func returningVisitor() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let other = try await app.newSession()
            #expect(cookie != other)
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)

            let again = try await app.get(cookie: cookie)
            #expect(again.status == 200)
            #expect(again.headers["Set-Cookie"].isEmpty)
            let page = BuilderPageSnapshot(html: again.text)
            #expect(page.description == "Natural Long V with Mahogany body and Rosewood fretboard")
            #expect(page.checkoutLabel == "Checkout ($2,075)")
            #expect(try await app.page(cookie: other).description == Self.defaultDescription)
            #expect(app.services.registry.count == 2)

            // The cookie among others, as a browser sends it.
            let mixed = try await app.get(headers: [("Cookie", "theme=dark; luthier_session=\(cookie); x=1")])
            #expect(mixed.headers["Set-Cookie"].isEmpty)
            #expect(BuilderPageSnapshot(html: mixed.text).price == "$2,075")
        }
    }

    @Test("a reload with nothing changed answers with the page drawn last; a change, or a cart's, draws again")
    func reloadAnswersWithThePageDrawnLast() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let first = try await app.get(cookie: cookie).text
            let lookups = { () -> Int in
                let pages = app.services.renderer.cacheStatistics.pages
                return pages.hits + pages.misses
            }
            let afterFirst = lookups()
            // The same states: the session's last page, not even a lookup in the render cache.
            #expect(try await app.get(cookie: cookie).text == first)
            #expect(lookups() == afterFirst)

            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let changed = try await app.page(cookie: cookie)
            #expect(changed.description == "Sky Long V with Mahogany body and Rosewood fretboard")
            #expect(lookups() == afterFirst + 1)

            // The cart's state counts too: the builder's page shows the cart's count.
            #expect(try await app.scriptPost("/cart/items", form: "", cookie: cookie).status == 204)
            let withCart = try await app.get(cookie: cookie).text
            #expect(withCart != first)
            #expect(lookups() == afterFirst + 2)
            // Another page of the session is another page, though drawn from the same states.
            #expect(try await app.get("/cart", cookie: cookie).text.contains("Sky Long V"))
            #expect(try await app.get(cookie: cookie).text == withCart)
        }
    }

    static let forgedCookies: [String] = [
        "abc",
        String(repeating: "a", count: 63),
        String(repeating: "a", count: 65),
        String(repeating: "g", count: 64),
        String(repeating: "A", count: 64),
        String(repeating: "0", count: 64),
        "../../" + String(repeating: "a", count: 58),
    ]

    @Test("an unknown or forged cookie is never adopted: a new id is issued", arguments: forgedCookies)
    func forgedCookie(_ forged: String) async throws {
        try await TestApp.run { app in
            let response = try await app.get(cookie: forged)
            #expect(response.status == 200)
            let cookie = try #require(SetCookie(response))
            #expect(cookie.value != forged)
            #expect(cookie.isWellFormedSessionID)
            #expect(app.liveSession(forged) == nil)
            #expect(app.services.registry.count == 0)

            let post = try await app.scriptPost(form: "color=sky", cookie: forged)
            #expect(post.status == 204)
            let postCookie = try #require(SetCookie(post))
            #expect(postCookie.value != forged && postCookie.value != cookie.value)
            // The post's session is the only one: the page's issued id has not acted.
            #expect(app.services.registry.count == 1)
            #expect(app.liveSession(postCookie.value) != nil)
        }
    }

    // MARK: POST /build

    @Test("every value of every field: 204 for a script, 303 for a form, and the page follows")
    func everyFieldAndValue() async throws {
        try await TestApp.run { app in
            let scriptCookie = try await app.newSession()
            let formCookie = try await app.newSession()
            var expected = Guitar.standard
            for field in GuitarField.allCases {
                for value in field.allowedValues {
                    let change = try GuitarChange(fields: [(field.rawValue, value)])
                    expected = expected.applying(change)

                    let script = try await app.scriptPost(form: "\(field.rawValue)=\(value)", cookie: scriptCookie)
                    #expect(script.status == 204, "\(field)=\(value)")
                    #expect(script.body.isEmpty)
                    #expect(script.headers["Set-Cookie"].isEmpty)

                    let form = try await app.post(form: "\(field.rawValue)=\(value)", cookie: formCookie)
                    #expect(form.status == 303, "\(field)=\(value)")
                    #expect(form.header("Location") == "/")
                    #expect(form.headers["Set-Cookie"].isEmpty)

                    for cookie in [scriptCookie, formCookie] {
                        let page = try await app.page(cookie: cookie)
                        #expect(page.description == expected.description, "\(field)=\(value)")
                        #expect(page.price == expected.price.formatted())
                        #expect(page.checkoutLabel == "Checkout (\(expected.price.formatted()))")
                        #expect(page.checkedValues[field.rawValue] == [value])
                    }
                }
            }
            // The walk ends on the last option of each field.
            #expect(expected.description == "Earth Sharp V with Koa body and Black Limba fretboard")
        }
    }

    @Test(
        "subsets of fields change exactly those fields",
        arguments: [
            ("shape=longV", "Natural Long V with Mahogany body and Rosewood fretboard", "$2,075"),
            ("color=sky&body=koa", "Sky Casual with Koa body and Rosewood fretboard", "$2,250"),
            (
                "fretboard=ebony&shape=sharpV&color=dusk", "Dusk Sharp V with Mahogany body and Ebony fretboard",
                "$2,200"
            ),
            (
                "shape=sharpV&color=sky&body=blackLimba&fretboard=blackLimba",
                "Sky Sharp V with Black Limba body and Black Limba fretboard", "$2,520"
            ),
            ("", BuildControllerTests.defaultDescription, "$2,000"),
        ]
    )
    func subsets(form: String, description: String, price: String) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: form, cookie: cookie).status == 204)
            let page = try await app.page(cookie: cookie)
            #expect(page.description == description)
            #expect(page.price == price)
            #expect(page.checkoutLabel == "Checkout (\(price))")
        }
    }

    @Test("a post without a session starts one and sets its cookie")
    func postStartsSession() async throws {
        try await TestApp.run { app in
            let response = try await app.post(form: "shape=chunky")
            #expect(response.status == 303)
            let cookie = try #require(SetCookie(response))
            #expect(cookie.isWellFormedSessionID)
            #expect(try await app.page(cookie: cookie.value).checkedValues["shape"] == ["chunky"])
        }
    }

    struct BadForm: Sendable, CustomTestStringConvertible {
        let name: String
        let body: [UInt8]
        /// Text every error message must contain.
        let mentions: [String]

        init(_ name: String, _ body: String, mentions: [String]) {
            self.init(name, bytes: Array(body.utf8), mentions: mentions)
        }

        init(_ name: String, bytes: [UInt8], mentions: [String]) {
            self.name = name
            self.body = bytes
            self.mentions = mentions
        }

        var testDescription: String { name }
    }

    static let badForms: [BadForm] = [
        BadForm(
            "unknown shape", "shape=banjo",
            mentions: ["shape", "banjo", "allowed values: casual, chunky, longV, sharpV"]
        ),
        BadForm(
            "unknown color next to a valid field", "body=koa&color=plaid",
            mentions: ["color", "plaid", "allowed values: natural, sky, dusk, earth"]
        ),
        BadForm(
            "unknown body", "body=pine",
            mentions: ["body", "allowed values: mahogany, blackLimba, swampAsh, koa"]
        ),
        BadForm(
            "unknown fretboard", "fretboard=maple",
            mentions: ["fretboard", "allowed values: rosewood, birdseyeMaple, ebony, blackLimba"]
        ),
        BadForm("case matters", "shape=LongV", mentions: ["shape", "allowed values: casual, chunky, longV, sharpV"]),
        BadForm("empty value", "shape=", mentions: ["shape", "allowed values: casual, chunky, longV, sharpV"]),
        BadForm("no equals sign", "shape", mentions: ["shape", "allowed values"]),
        BadForm(
            "unknown field", "shape=longV&neck=maple",
            mentions: ["neck", "allowed fields: shape, color, body, fretboard"]
        ),
        BadForm("duplicate field", "shape=longV&shape=chunky", mentions: ["shape", "more than once"]),
        BadForm("duplicate field, same value", "color=sky&color=sky", mentions: ["color", "more than once"]),
        BadForm("truncated percent escape", "shape=longV%2", mentions: ["percent escape"]),
        BadForm("non-hex percent escape", "shape=%G1ongV", mentions: ["percent escape"]),
        BadForm("percent-encoded invalid UTF-8", "shape=%FF%FE", mentions: ["UTF-8"]),
        BadForm("raw invalid UTF-8", bytes: Array("shape=".utf8) + [0xC3, 0x28], mentions: ["UTF-8"]),
        BadForm("field without a name", "=longV", mentions: ["no name"]),
    ]

    @Test("a bad form is refused with 422, names the problem, and changes nothing", arguments: badForms)
    func badForm(_ bad: BadForm) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)

            let response = try await app.post(
                bytes: bad.body,
                cookie: cookie,
                headers: [("X-Requested-With", "fetch")]
            )
            #expect(response.status == 422)
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            for mention in bad.mentions {
                #expect(response.text.contains(mention), "\(response.text) should mention \(mention)")
            }
            #expect(response.headers["Set-Cookie"].isEmpty)

            let page = try await app.page(cookie: cookie)
            #expect(page.description == "Sky Casual with Mahogany body and Rosewood fretboard")
            #expect(page.checkedValues["shape"] == ["casual"])
        }
    }

    @Test("the exact plain-text message for an unknown value")
    func plainTextMessage() async throws {
        try await TestApp.run { app in
            let response = try await app.post(form: "shape=banjo")
            #expect(response.status == 422)
            #expect(
                response.text == "Field 'shape' cannot be 'banjo'; allowed values: casual, chunky, longV, sharpV.\n")
            #expect(response.header("Cache-Control") == "no-store")
        }
    }

    @Test("a browser's form post gets an HTML error page, with the message escaped")
    func htmlErrorPage() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let response = try await app.post(
                form: "shape=%3Cscript%3Ealert(1)%3C/script%3E",
                cookie: cookie,
                headers: [("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")]
            )
            #expect(response.status == 422)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text.contains("data-status=\"422\""))
            #expect(response.text.contains("allowed values: casual, chunky, longV, sharpV"))
            #expect(!response.text.contains("<script>alert"))
            #expect(response.text.contains("&lt;script&gt;"))
            #expect(response.text.contains("href=\"/\""))

            // A script asking for HTML still gets text: it shows the message itself.
            let scripted = try await app.post(
                form: "shape=banjo",
                cookie: cookie,
                headers: [("Accept", "text/html"), ("X-Requested-With", "fetch")]
            )
            #expect(scripted.status == 422)
            #expect(scripted.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)
        }
    }

    @Test(
        "a body that is not a URL-encoded form is refused with 415",
        arguments: [
            ("application/json", "{\"shape\":\"longV\"}"),
            ("text/plain", "shape=longV"),
            (
                "multipart/form-data; boundary=x",
                "--x\r\nContent-Disposition: form-data; name=\"shape\"\r\n\r\nlongV\r\n--x--"
            ),
            (nil, "shape=longV"),
        ] as [(String?, String)]
    )
    func wrongContentType(contentType: String?, body: String) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let response = try await app.post(form: body, cookie: cookie, contentType: contentType)
            #expect(response.status == 415)
            #expect(response.text.contains("application/x-www-form-urlencoded"))
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)
        }
    }

    @Test("the form media type is matched without case or parameters")
    func contentTypeParameters() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let response = try await app.post(
                form: "shape=longV",
                cookie: cookie,
                contentType: "Application/X-WWW-Form-URLEncoded; charset=UTF-8"
            )
            #expect(response.status == 303)
            #expect(try await app.page(cookie: cookie).checkedValues["shape"] == ["longV"])
        }
    }

    @Test("a form over the size limit is refused with 413; one at the limit is accepted")
    func oversizedForm() async throws {
        let atLimit = "shape=longV&color=sky&body=koa&fretboard=ebony"
        try await TestApp.run(configure: { $0.maxFormBytes = atLimit.utf8.count }) { app in
            let cookie = try await app.newSession()
            let tooLarge = try await app.scriptPost(form: atLimit + "&", cookie: cookie)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.text.contains("larger than \(atLimit.utf8.count) bytes"), "\(tooLarge.text)")
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)

            let padded = try await app.scriptPost(
                form: "shape=longV&" + String(repeating: "x", count: 4_000), cookie: cookie)
            #expect(padded.status == 413)
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)

            #expect(try await app.scriptPost(form: atLimit, cookie: cookie).status == 204)
            #expect(try await app.page(cookie: cookie).description == "Sky Long V with Koa body and Ebony fretboard")
        }
    }

    @Test("a post that announces a body past the form limit is answered 413 before any of it is sent, and closed")
    func announcedOversizedForm() async throws {
        try await TestApp.run(configure: { $0.maxFormBytes = 64 }) { app in
            let cookie = try await app.newSession()
            let connection = try await RawHTTPConnection.connect(port: app.port)
            // A client asking to go on (`Expect: 100-continue`, as curl does for large bodies) and
            // one that just sends: neither should wait for the body to learn it is refused.
            let head =
                "POST /build HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nCookie: luthier_session=\(cookie)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000000\r\n"
                + "Expect: 100-continue\r\n\r\n"
            let result = await connection.exchange(
                ByteBuffer(string: head), expecting: [.whole(isHead: false)], timeout: .seconds(30))
            let response = try #require(try result.get().first)
            #expect(response.status == 413)
            #expect(response.text == "The request's body is larger than 64 bytes, the most this server takes.\n")
            #expect(response.closesConnection)
            await connection.close()
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)
        }
    }

    // MARK: POST /build/reset

    @Test("start over goes back to the standard guitar")
    func reset() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=sharpV&color=earth&body=koa", cookie: cookie).status == 204)
            #expect(try await app.page(cookie: cookie).price == "$2,250")

            let script = try await app.scriptPost("/build/reset", form: "", cookie: cookie)
            #expect(script.status == 204)
            var page = try await app.page(cookie: cookie)
            #expect(page.description == Self.defaultDescription)
            #expect(page.checkedValues == Self.defaultChecked)

            #expect(try await app.scriptPost(form: "fretboard=ebony", cookie: cookie).status == 204)
            let form = try await app.post("/build/reset", form: "", cookie: cookie)
            #expect(form.status == 303)
            #expect(form.header("Location") == "/")
            page = try await app.page(cookie: cookie)
            #expect(page.checkoutLabel == "Checkout ($2,000)")
            #expect(page.checkedValues == Self.defaultChecked)

            // With no body and no content type at all, as some tools send it.
            #expect(try await app.scriptPost(form: "body=koa", cookie: cookie).status == 204)
            let bare = try await app.post("/build/reset", bytes: [], cookie: cookie, contentType: nil)
            #expect(bare.status == 303)
            #expect(try await app.page(cookie: cookie).description == Self.defaultDescription)
        }
    }

    @Test("start over with fields is refused with 422 and changes nothing")
    func resetWithFields() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let response = try await app.scriptPost("/build/reset", form: "shape=casual", cookie: cookie)
            #expect(response.status == 422)
            #expect(response.text.contains("shape"))
            #expect(try await app.page(cookie: cookie).checkedValues["shape"] == ["longV"])
        }
    }

    @Test("unknown routes and methods are not the builder")
    func unknownRoutes() async throws {
        try await TestApp.run { app in
            let build = try await app.get("/build")
            let nope = try await app.get("/nope")
            #expect(build.status != 200)
            #expect(nope.status == 404)
            #expect(app.services.registry.count == 0)
        }
    }
}
