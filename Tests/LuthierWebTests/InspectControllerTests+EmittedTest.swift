import Foundation
import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

extension InspectControllerTests {
    /// Where the test emitted from the session below lives: in the features' test target, which
    /// compiles and runs it (`ReplayedRecordedSession`).
    static let emittedTest = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../LuthierFeaturesTests/Replayed/ReplayedRecordedSession.swift").standardized

    @Test("a session recorded over HTTP becomes the test the features' target compiles and runs, in one command")
    func aRecordedSessionBecomesATest() async throws {
        try await Self.runRecordingShop { app in
            // No order: its number is drawn at random, and the emitted test is compared with the
            // one the suite compiles.
            let cookie = try await Self.recordShopping(app)
            let trace = try await app.get("/inspect/trace", cookie: cookie).text

            // What `luthier replay recorded-session.json --emit-test` writes.
            let emitted = try ReplayTestEmitter.source(
                of: try SessionTrace(json: Data(trace.utf8)), file: "recorded-session.json")
            if ProcessInfo.processInfo.environment["LUTHIER_WRITE_EMITTED_TEST"] == "1" {
                try emitted.write(to: Self.emittedTest, atomically: true, encoding: .utf8)
            }
            let compiled = try String(contentsOf: Self.emittedTest, encoding: .utf8)
            #expect(
                emitted == compiled,
                "the session's emitted test is not the one the suite compiles; run this test with LUTHIER_WRITE_EMITTED_TEST=1 to write it"
            )
            // Every step is fed: each store's inputs and its answers (the rates, the order).
            let steps = try SessionTrace(json: Data(trace.utf8)).steps
            for step in steps {
                #expect(emitted.contains("try store.\(step.origin == .input ? "input" : "answer")(\(step.number))  //"))
            }
            #expect(Set(steps.map(\.store)) == ["build", "cart", "checkout"])
            #expect(steps.contains { $0.origin == .effect } && steps.contains { $0.refusal != nil })
        }
    }
}
