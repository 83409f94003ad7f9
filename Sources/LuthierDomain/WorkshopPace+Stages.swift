import Foundation

extension WorkshopPace {
    /// The workshop's step, judged here and not in a store: the stage an order in `status`
    /// (shipped by `shipping`) moves to, begun when its current stage (begun at `startedAt`) has
    /// run its course; nil while the stage still runs at `now`, or when the order has no next
    /// stage (finished, cancelled, collected).
    ///
    /// The next stage begins when the last one ends, not when it was noticed, so a server that was
    /// down catches up stage by stage with each stage's true time, and no stage is skipped.
    /// Times count in whole milliseconds, as orders store them, so that a stage is due at exactly
    /// the same instant however a store keeps it.
    public func nextStage(after status: OrderStatus, shipping: ShippingMethod, startedAt: Date, now: Date)
        -> StageEntry?
    {
        guard let next = status.next(for: shipping) else { return nil }
        let ends = Self.milliseconds(startedAt) + perStageMilliseconds
        guard ends <= Self.milliseconds(now) else { return nil }
        return StageEntry(status: next, startedAt: Self.date(milliseconds: ends))
    }

    /// The latest start, in whole milliseconds, of a stage that has run its course by `now`: a
    /// store need only look at the orders whose stage began then or before (and judge each with
    /// ``nextStage(after:shipping:startedAt:now:)``).
    public func latestDueStart(by now: Date) -> Int64 {
        Self.milliseconds(now) - perStageMilliseconds
    }

    /// When a stage begun at `startedAt` ends.
    public func stageEnds(startedAt: Date) -> Date {
        Self.date(milliseconds: Self.milliseconds(startedAt) + perStageMilliseconds)
    }

    /// The time per stage in whole milliseconds.
    public var perStageMilliseconds: Int64 {
        let (seconds, attoseconds) = perStage.components
        return seconds * 1_000 + Int64((Double(attoseconds) / 1e15).rounded())
    }

    /// An instant as orders store it: whole milliseconds since 1970.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
