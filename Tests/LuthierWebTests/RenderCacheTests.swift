import Foundation
import LuthierDomain
import LuthierFeatures
import NIOCore
import Synchronization
import Testing

@testable import LuthierWeb

@Suite("RenderCache")
struct RenderCacheTests {
    /// Counts renders, so a test can tell a remembered value from a fresh one.
    final class Renders: Sendable {
        private let count = Mutex(0)
        var total: Int { count.withLock { $0 } }

        func render(_ text: String) -> String {
            count.withLock { $0 += 1 }
            return text
        }
    }

    static func cache(maxEntries: Int = 16, maxBytes: Int = 1 << 20) -> RenderCache<String> {
        RenderCache(maxEntries: maxEntries, maxBytes: maxBytes) { $0.utf8.count }
    }

    @Test("a value is rendered once per template and key, then found")
    func remembersByTemplateAndKey() {
        let cache = Self.cache()
        let renders = Renders()
        #expect(cache.value(template: "a", key: 1) { renders.render("a1") } == "a1")
        #expect(cache.value(template: "a", key: 1) { renders.render("wrong") } == "a1")
        #expect(renders.total == 1)
        #expect(cache.value(template: "a", key: 2) { renders.render("a2") } == "a2")
        #expect(cache.value(template: "b", key: 1) { renders.render("b1") } == "b1")
        #expect(renders.total == 3)
        let statistics = cache.statistics
        #expect(statistics.entries == 3)
        #expect(statistics.hits == 1)
        #expect(statistics.misses == 3)
        #expect(statistics.bytes == 6)
    }

    @Test("past its entry bound the oldest entries go first")
    func evictsOldestByCount() {
        let cache = Self.cache(maxEntries: 3)
        let renders = Renders()
        for key in 0..<5 { _ = cache.value(template: "t", key: key) { renders.render("v\(key)") } }
        #expect(cache.statistics.entries == 3)
        #expect(renders.total == 5)
        // 2, 3 and 4 are still there; 0 is rendered again.
        for key in 2..<5 { #expect(cache.value(template: "t", key: key) { renders.render("x") } == "v\(key)") }
        #expect(renders.total == 5)
        #expect(cache.value(template: "t", key: 0) { renders.render("again") } == "again")
        #expect(renders.total == 6)
    }

    @Test("past its byte bound the oldest entries go, and a value larger than the bound is not kept")
    func evictsByBytes() {
        let cache = Self.cache(maxEntries: 100, maxBytes: 10)
        _ = cache.value(template: "t", key: "a") { "12345" }
        _ = cache.value(template: "t", key: "b") { "12345" }
        #expect(cache.statistics.bytes == 10)
        _ = cache.value(template: "t", key: "c") { "123" }
        #expect(cache.statistics.entries == 2)
        #expect(cache.statistics.bytes == 8)
        #expect(cache.value(template: "t", key: "huge") { String(repeating: "x", count: 11) }.count == 11)
        #expect(cache.statistics.entries == 2)
        #expect(cache.statistics.bytes == 8)
    }

    @Test("many evictions keep the cache within its bounds and still answering")
    func longRun() {
        let cache = Self.cache(maxEntries: 50)
        for key in 0..<10_000 { _ = cache.value(template: "t", key: key) { "v\(key)" } }
        #expect(cache.statistics.entries == 50)
        #expect(cache.value(template: "t", key: 9_999) { "rendered" } == "v9999")
    }

    @Test("the renderer's cached page and fragments are exactly what an uncached render gives")
    func rendererCachesFaithfully() async throws {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        let output = BuildOutput(state: BuildState(guitar: .standard))
        let cart = CartViewModel().currentOutput
        let page = BuilderPage(cart: cart, output: output)
        let fresh = renderer.render(page, template: "builder")
        #expect(fresh.contains(output.artwork.image))
        #expect(String(buffer: renderer.page(template: "builder", key: page.key) { page }.bytes) == fresh)
        #expect(String(buffer: renderer.page(template: "builder", key: page.key) { page }.bytes) == fresh)
        #expect(renderer.cacheStatistics.pages.hits == 1)

        var changed = BuildState(guitar: .standard)
        changed.guitar.color = .sky
        let other = BuilderPage(cart: cart, output: BuildOutput(state: changed))
        let otherHTML = String(buffer: renderer.page(template: "builder", key: other.key) { other }.bytes)
        #expect(otherHTML != fresh)
        #expect(otherHTML == renderer.render(other, template: "builder"))

        let picture = renderer.render(cached: output.artwork, template: "fragments/guitar-picture")
        #expect(picture == renderer.render(output.artwork, template: "fragments/guitar-picture"))
    }
}
