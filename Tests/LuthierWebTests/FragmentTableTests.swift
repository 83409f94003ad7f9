import Foundation
import LuthierDomain
import LuthierFeatures
import NIOCore
import ServerMachinery
import Testing

@testable import LuthierWeb

/// The fragment tables: a fragment is sent when its projection changed and only then, its render
/// is shared by everything with the same projection, and the server requires exactly the partials
/// the tables render.
@Suite struct FragmentTableTests {
    static func renderer() async throws -> PageRenderer {
        try await PageRenderer(directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
    }

    static func output(_ guitar: Guitar) -> BuildOutput { BuildOutput(state: BuildState(guitar: guitar)) }

    @Test func aFragmentIsSentWhenItsProjectionChangedAndOnlyThen() async throws {
        let renderer = try await Self.renderer()
        let standard = Self.output(.standard)
        #expect(
            BuildFragments.table.all(standard, renderer: renderer).map(\.target)
                == ["guitar-picture", "guitar-description", "guitar-price"]
                + standard.pickers.map { BuildFragments.pickerTarget($0.field) } + ["checkout-action"])
        #expect(BuildFragments.table.changed(from: standard, to: standard, renderer: renderer).isEmpty)

        // A colour costs nothing: the price and the checkout button stay as they were.
        var dusk = Guitar.standard
        dusk.color = .dusk
        #expect(
            BuildFragments.table.changed(from: standard, to: Self.output(dusk), renderer: renderer).map(\.target) == [
                "guitar-picture", "guitar-description", "picker-color",
            ])
        // Koa costs more: the price and the button (which shows it) follow.
        var koa = Guitar.standard
        koa.body = .koa
        #expect(
            BuildFragments.table.changed(from: standard, to: Self.output(koa), renderer: renderer).map(\.target) == [
                "guitar-picture", "guitar-description", "guitar-price", "picker-body", "checkout-action",
            ])
    }

    @Test func aRenderIsSharedByEverythingWithTheSameProjection() async throws {
        let renderer = try await Self.renderer()
        var dusk = Guitar.standard
        dusk.color = .dusk
        // The same price for two guitars: one render of the price fragment, looked up the second time.
        let first = BuildFragments.table.all(Self.output(.standard), renderer: renderer)
        let before = renderer.cacheStatistics.fragments
        let second = BuildFragments.table.all(Self.output(dusk), renderer: renderer)
        let after = renderer.cacheStatistics.fragments
        #expect(first.first { $0.target == "guitar-price" }?.html == second.first { $0.target == "guitar-price" }?.html)
        // Price, the unchanged pickers and the button are found; picture, description and the colour
        // picker are rendered.
        #expect(after.misses - before.misses == 3)
        #expect(after.hits - before.hits == second.count - 3)
    }

    @Test func aPartThatComesAndGoesRendersWholeWhenItComes() async throws {
        let renderer = try await Self.renderer()
        let table = FragmentTable<BuildOutput?>([CheckoutFragments.table.pullback { _ in nil }])
        #expect(table.all(nil, renderer: renderer).isEmpty)
        #expect(SessionFragments.table.templates.contains("fragments/checkout-order"))
    }

    @Test func theRequiredTemplatesAreTheTablesPartialsAndThePages() {
        let required = Set(PageRenderer.requiredTemplates)
        for template in SessionFragments.table.templates + KioskFragments.table.templates
            + JournalFragments.table.templates
        {
            #expect(required.contains(template), "\(template)")
        }
        let partials = required.filter { $0.hasPrefix("fragments/") }
        let pagesOwn = [
            "fragments/order-stages", "fragments/inspector-lanes", "fragments/inspector-marble",
            "fragments/inspector-clock", "fragments/admin-nav",
        ]
        let tables =
            SessionFragments.table.templates + KioskFragments.table.templates + JournalFragments.table.templates
        #expect(partials == Set(tables + pagesOwn))
        // Every partial in the folder is one the server renders.
        let folder = TestApp.repositoryRoot.appendingPathComponent("Templates/fragments").path
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        #expect(Set(files.map { "fragments/" + $0.replacingOccurrences(of: ".mustache", with: "") }) == partials)
    }
}

extension FragmentTableTests {
    @Test func theTablesDeclareHowEachChangeIsAnnouncedAndAStreamSaysSo() async throws {
        let announcements = SessionFragments.table.announcements
        #expect(announcements[BuildFragments.price] == .polite)
        #expect(announcements[BuildFragments.description] == .polite)
        #expect(announcements[BuildFragments.checkout] == .status)
        #expect(announcements[CartFragments.summary] == .polite)
        #expect(announcements[CheckoutFragments.order] == .status)
        #expect(announcements[BuildFragments.picture] == nil, "a picture is described by its text, not announced")

        // A session's stream writes the declaration into the patch of each announced fragment.
        let renderer = try await Self.renderer()
        let store = FragmentStore(
            initial: BuildFragments.table.all(Self.output(.standard), renderer: renderer), announcements: announcements)
        let start = store.version
        var koa = Guitar.standard
        koa.body = .koa
        store.publish(
            BuildFragments.table.changed(from: Self.output(.standard), to: Self.output(koa), renderer: renderer))
        let event = String(buffer: store.patchEvent(since: start).patch ?? ByteBuffer())
        // The picture, description, price, body picker and button changed: the description and
        // price are announced politely, the button as a status, the rest not at all.
        #expect(event.components(separatedBy: #","announce":"polite"}"#).count - 1 == 2)
        #expect(event.components(separatedBy: #","announce":"status"}"#).count - 1 == 1)
        #expect(event.components(separatedBy: #""target":"#).count - 1 == 5)
    }
}
