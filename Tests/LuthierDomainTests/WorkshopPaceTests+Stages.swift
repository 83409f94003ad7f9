import Foundation
import LuthierDomain
import Testing

@Suite("WorkshopPace stages")
struct WorkshopPaceStageTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000.123)
    static let pace = WorkshopPace(perStage: .seconds(10))

    @Test("a stage is due exactly when it has run its course, and the next begins when it ended, not when noticed")
    func dueAtTheEnd() {
        let pace = Self.pace
        let almost = Self.start.addingTimeInterval(9.999)
        #expect(pace.nextStage(after: .woodSelection, shipping: .ground, startedAt: Self.start, now: almost) == nil)
        let end = pace.stageEnds(startedAt: Self.start)
        #expect(WorkshopPace.milliseconds(end) - WorkshopPace.milliseconds(Self.start) == 10_000)
        #expect(
            pace.nextStage(after: .woodSelection, shipping: .ground, startedAt: Self.start, now: end)
                == StageEntry(status: .bodyShaping, startedAt: end))
        // Noticed late (the server was down): the next stage still began at the end.
        let late = Self.start.addingTimeInterval(3_600)
        #expect(
            pace.nextStage(after: .woodSelection, shipping: .ground, startedAt: Self.start, now: late)?.startedAt
                == end)
    }

    @Test("an order far behind moves one stage per step, each at its own time: none skipped")
    func oneStageAtATime() {
        var status = OrderStatus.woodSelection
        var startedAt = Self.start
        var seen: [OrderStatus] = []
        let now = Self.start.addingTimeInterval(86_400)
        while let next = Self.pace.nextStage(after: status, shipping: .pickup, startedAt: startedAt, now: now) {
            #expect(WorkshopPace.milliseconds(next.startedAt) - WorkshopPace.milliseconds(startedAt) == 10_000)
            seen.append(next.status)
            (status, startedAt) = (next.status, next.startedAt)
        }
        #expect(seen == [.bodyShaping, .finishing, .setup, .readyForPickup])
    }

    @Test(
        "finished, cancelled and collected orders never move", arguments: [OrderStatus.shipped, .cancelled, .collected])
    func finishedNeverMove(status: OrderStatus) {
        let now = Self.start.addingTimeInterval(86_400)
        #expect(Self.pace.nextStage(after: status, shipping: .ground, startedAt: Self.start, now: now) == nil)
    }
}
