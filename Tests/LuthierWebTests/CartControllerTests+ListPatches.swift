import Foundation
import LuthierDomain
import TestSupport
import Testing

@testable import LuthierWeb

/// A cart's lines are a keyed list: a change to one line sends that line, an added or removed line
/// its insertion or removal, and a page following the stream shows what a page loaded now shows.
extension CartControllerTests {
    /// Nineteen different guitars, one line each.
    static let nineteen = Array(Guitar.allConfigurations.prefix(19))

    /// The cart page's lines, as a page loaded now shows them.
    static func linesOnPage(_ app: TestApp, cookie: String) async throws -> String {
        let page = try await app.get("/cart", cookie: cookie).text
        return try #require(FollowedPage.content(ofElement: CartFragments.lines, in: page))
    }

    @Test("a change to one line of a nineteen-line cart sends that line; adding and removing send one item")
    func oneLineChangeSendsOneLine() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            for guitar in Self.nineteen { try await Self.add(app, Self.form(guitar), cookie: cookie) }
            let stream = try await app.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()  // retry
            let (_, opening) = try await stream.nextPatch()
            #expect(opening.html(CartFragments.lines) == (try await Self.linesOnPage(app, cookie: cookie)))

            // One more of the eighth guitar: of its line, the quantity and the line's total; nothing
            // of the other eighteen.
            let eighth = CartLine.id(for: Self.nineteen[7])
            #expect(try await app.scriptPost("/cart/lines/\(eighth)/increment", form: "", cookie: cookie).status == 204)
            let (changed, bytes) = try await stream.nextSentPatch(touching: CartFragments.lines)
            let edits = try #require(changed.fragments.first { $0.target == CartFragments.lines }?.edits)
            #expect(edits.map(\.id) == ["quantity-\(eighth)", "line-total-\(eighth)"])
            #expect(edits.allSatisfy { !$0.isPut })
            #expect(edits.first?.html == "<span class=\"qty-value\" id=\"quantity-\(eighth)\">2</span>")
            #expect(bytes < 2_000, "\(bytes) bytes for a one-line change: \(changed)")
            #expect(stream.shown.html(CartFragments.lines) == (try await Self.linesOnPage(app, cookie: cookie)))

            // A twentieth guitar: one insertion after the last line.
            let twentieth = Guitar.allConfigurations[19]
            try await Self.add(app, Self.form(twentieth), cookie: cookie)
            let added = try #require(
                try await stream.nextSentPatch(touching: CartFragments.lines).patch.fragments.first {
                    $0.target == CartFragments.lines
                })
            let last = CartLine.id(for: Self.nineteen[18])
            #expect(added.edits?.map(\.id) == ["line-\(CartLine.id(for: twentieth))"])
            #expect(added.edits?.first?.isPut == true)
            #expect(added.edits?.first?.after == "line-\(last)")
            #expect(stream.shown.html(CartFragments.lines) == (try await Self.linesOnPage(app, cookie: cookie)))

            // The first line removed: one removal.
            let first = CartLine.id(for: Self.nineteen[0])
            #expect(try await app.scriptPost("/cart/lines/\(first)/remove", form: "", cookie: cookie).status == 204)
            let removed = try #require(
                try await stream.nextSentPatch(touching: CartFragments.lines).patch.fragments.first {
                    $0.target == CartFragments.lines
                })
            #expect(removed.edits == [Patch.ListEdit(id: "line-\(first)", remove: true)])
            #expect(stream.shown.html(CartFragments.lines) == (try await Self.linesOnPage(app, cookie: cookie)))
            await stream.close()
        }
    }

    @Test("a stream that missed a change, or a new one, gets the lines whole")
    func aStreamBehindGetsTheListWhole() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            for guitar in Self.nineteen.prefix(3) { try await Self.add(app, Self.form(guitar), cookie: cookie) }
            let session = try #require(app.liveSession(cookie))
            let before = session.fragments.version
            let second = CartLine.id(for: Self.nineteen[1])
            #expect(try await app.scriptPost("/cart/lines/\(second)/increment", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/lines/\(second)/increment", form: "", cookie: cookie).status == 204)

            let stream = try await app.openEventStream("/events?since=\(before)", cookie: cookie)
            _ = try await stream.nextEvent()  // retry
            let (_, caughtUp) = try await stream.nextSentPatch()
            let lines = try #require(caughtUp.fragments.first { $0.target == CartFragments.lines })
            #expect(lines.edits == nil)
            #expect(lines.html == (try await Self.linesOnPage(app, cookie: cookie)))
            await stream.close()
        }
    }
}
