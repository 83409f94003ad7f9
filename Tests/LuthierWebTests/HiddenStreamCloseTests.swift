import Foundation
import TestSupport
import Testing

@testable import LuthierWeb

/// How long a browser's tabs may all be hidden before its streams close is the operator's
/// setting, written into every page for its script; the kiosk's page carries none (it never
/// closes).
@Suite("Hidden stream close")
struct HiddenStreamCloseTests {
    static func setting(_ html: String) -> String? {
        html.firstMatch(of: /data-hidden-close="([0-9]*)"/).map { String($0.output.1) }
    }

    @Test("a page names the setting in milliseconds, 0 for never; the kiosk names none")
    func pagesNameTheSetting() async throws {
        try await TestApp.run(configure: { $0.hiddenStreamClose = .seconds(7) }) { app in
            let (builder, cart, kiosk) = (
                try await app.get("/"), try await app.get("/cart"), try await app.get("/kiosk")
            )
            #expect(Self.setting(builder.text) == "7000")
            #expect(Self.setting(cart.text) == "7000")
            #expect(Self.setting(kiosk.text) == nil)
        }
        try await TestApp.run(configure: { $0.hiddenStreamClose = nil }) { app in
            let builder = try await app.get("/")
            #expect(Self.setting(builder.text) == "0")
        }
        try await TestApp.run { app in
            let builder = try await app.get("/")
            #expect(Self.setting(builder.text) == "300000", "five minutes by default")
        }
    }
}
