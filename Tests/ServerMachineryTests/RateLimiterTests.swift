import Clocks
import Testing

@testable import ServerMachinery

@Suite struct RateLimiterTests {
    @Test("at most `limit` events in any window; the refusal says how long until the oldest leaves it")
    func slidingWindow() async {
        let clock = TestClock<Duration>()
        let limiter = RateLimiter(rule: RateLimiter.Rule(limit: 2, window: .seconds(60)), clock: clock)
        #expect(limiter.take("a") == .allowed(at: .zero))
        await clock.advance(by: .seconds(10))
        #expect(limiter.take("a") == .allowed(at: .seconds(10)))
        await clock.advance(by: .seconds(5))
        #expect(limiter.take("a") == .refused(retryAfter: .seconds(45)))
        // Another key has its own count.
        #expect(limiter.take("b") == .allowed(at: .seconds(15)))
        await clock.advance(by: .seconds(45))
        #expect(limiter.take("a") == .allowed(at: .seconds(60)))
        #expect(limiter.take("a") == .refused(retryAfter: .seconds(10)))
    }

    @Test("an event given back frees its place at once")
    func giveBack() async {
        let clock = TestClock<Duration>()
        let limiter = RateLimiter(rule: RateLimiter.Rule(limit: 1, window: .seconds(60)), clock: clock)
        guard case .allowed(let at) = limiter.take("a") else {
            Issue.record("the first event was refused")
            return
        }
        #expect(limiter.take("a") == .refused(retryAfter: .seconds(60)))
        limiter.giveBack("a", at: at)
        #expect(limiter.take("a") == .allowed(at: .zero))
    }

    @Test("the keys held are bounded: expired ones are swept, then the least recently used go")
    func boundedKeys() async {
        let clock = TestClock<Duration>()
        let limiter = RateLimiter(rule: RateLimiter.Rule(limit: 1, window: .seconds(60)), clock: clock, maxKeys: 100)
        for index in 0..<100 { _ = limiter.take("old-\(index)") }
        #expect(limiter.keyCount == 100)
        await clock.advance(by: .seconds(61))
        #expect(limiter.take("new") == .allowed(at: .seconds(61)))
        #expect(limiter.keyCount == 1)
        for index in 0..<500 { _ = limiter.take("flood-\(index)") }
        #expect(limiter.keyCount <= 100)
        // The newest keys are still counted.
        #expect(limiter.take("flood-499") == .refused(retryAfter: .seconds(60)))
    }
}
