import Foundation
import Testing

@testable import LuthierDomain

@Suite struct OrderStatusTests {
    @Test func everyOrderGoesThroughFiveStagesEndingByItsShipping() {
        #expect(
            OrderStatus.stages(for: .ground) == [.woodSelection, .bodyShaping, .finishing, .setup, .shipped])
        #expect(OrderStatus.stages(for: .express) == OrderStatus.stages(for: .ground))
        #expect(
            OrderStatus.stages(for: .pickup) == [.woodSelection, .bodyShaping, .finishing, .setup, .readyForPickup])
    }

    @Test(arguments: ShippingMethod.allCases)
    func nextWalksTheStagesOneByOneAndStopsAtTheEnd(shipping: ShippingMethod) {
        var walked: [OrderStatus] = [.woodSelection]
        while let next = walked.last?.next(for: shipping) {
            walked.append(next)
            if walked.count > 10 { break }
        }
        #expect(walked == OrderStatus.stages(for: shipping))
        #expect(walked.last?.isFinished == true)
        #expect(walked.dropLast().allSatisfy { !$0.isFinished })
    }

    @Test func finishedOrdersHaveNoNextStage() {
        for shipping in ShippingMethod.allCases {
            #expect(OrderStatus.shipped.next(for: shipping) == nil)
            #expect(OrderStatus.readyForPickup.next(for: shipping) == nil)
            #expect(OrderStatus.cancelled.next(for: shipping) == nil)
            #expect(OrderStatus.collected.next(for: shipping) == nil)
        }
        #expect(OrderStatus.allCases.filter(\.isFinished) == [.shipped, .readyForPickup, .cancelled, .collected])
    }

    @Test func onlyWoodSelectionCanBeCancelledAndOnlyReadyForPickupCollected() {
        #expect(OrderStatus.allCases.filter(\.isCancellable) == [.woodSelection])
        #expect(OrderStatus.allCases.filter(\.isCollectable) == [.readyForPickup])
    }

    @Test func labels() {
        #expect(
            OrderStatus.allCases.map(\.label) == [
                "Wood selection", "Body shaping", "Finishing", "Setup", "Shipped", "Ready for pickup", "Cancelled",
                "Collected",
            ])
    }

    @Test func aNewOrderStartsAtWoodSelectionWhenPlaced() throws {
        let order = try OrderTests.order(rate: "1", currency: .usd, discount: nil)
        #expect(order.status == .woodSelection)
        #expect(order.stageStartedAt == order.placedAt)
        var moved = order
        moved.status = .finishing
        moved.stageStartedAt = order.placedAt.addingTimeInterval(172_800)
        let decoded = try JSONDecoder().decode(Order.self, from: try JSONEncoder().encode(moved))
        #expect(decoded == moved)
    }

    /// A session saved before orders had stages holds an order with status `placed` and no
    /// `stageStartedAt`: it reads as an order at wood selection since it was placed.
    @Test func anOrderSavedBeforeStagesReadsAsWoodSelection() throws {
        let order = try OrderTests.order(rate: "0.83", currency: .eur, discount: nil)
        var json = try #require(
            JSONSerialization.jsonObject(with: try JSONEncoder().encode(order)) as? [String: Any])
        json["status"] = "placed"
        json.removeValue(forKey: "stageStartedAt")
        let decoded = try JSONDecoder().decode(Order.self, from: try JSONSerialization.data(withJSONObject: json))
        #expect(decoded == order)
        #expect(decoded.status == .woodSelection)
        #expect(decoded.stageStartedAt == order.placedAt)

        json["status"] = "lost"
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Order.self, from: try JSONSerialization.data(withJSONObject: json))
        }
    }
}

@Suite struct WorkshopPaceTests {
    @Test func theNamedPaces() throws {
        #expect(WorkshopPace.days.perStage == .seconds(86_400))
        #expect(WorkshopPace.demo.perStage == .seconds(10))
        #expect(try WorkshopPace(argument: "days") == .days)
        #expect(try WorkshopPace(argument: "demo") == .demo)
    }

    @Test(arguments: [
        ("30s", Duration.seconds(30)), ("1s", .seconds(1)), ("5m", .seconds(300)), ("2h", .seconds(7_200)),
        ("1d", .seconds(86_400)), ("30d", .seconds(2_592_000)), ("720h", .seconds(2_592_000)),
        ("007s", .seconds(7)),
    ])
    func anAmountWithItsUnit(argument: String, perStage: Duration) throws {
        #expect(try WorkshopPace(argument: argument).perStage == perStage)
    }

    @Test(arguments: [
        "", "s", "10", "10x", "fast", "Days", "DEMO", "-5m", "+5m", "1.5h", "5 m", " 5m", "5m ", "1d2h", "٣s",
    ])
    func somethingElseIsNotAPace(argument: String) {
        #expect {
            try WorkshopPace(argument: argument)
        } throws: { error in
            let error = error as? WorkshopPace.ParseError
            return error?.argument == argument
                && error?.description
                    == "'\(argument)' is not a workshop pace; write days, demo, or a time per stage such as 30s, 5m, 2h or 1d (at most 30d)."
        }
    }

    @Test(arguments: ["0s", "0d", "000m"])
    func aPaceMustBeMoreThanZero(argument: String) {
        #expect(
            Self.refusal(of: argument)
                == "'\(argument)': a workshop pace must be more than zero; write days, demo, or a time per stage such as 30s, 5m, 2h or 1d (at most 30d)."
        )
    }

    @Test(arguments: ["31d", "2592001s", "43201m", "721h", "99999999999999999999s", "00000000000031d"])
    func aPaceIsAtMostThirtyDays(argument: String) {
        #expect(
            Self.refusal(of: argument)
                == "'\(argument)': a workshop pace is at most 30 days; write days, demo, or a time per stage such as 30s, 5m, 2h or 1d (at most 30d)."
        )
    }

    /// What refusing `argument` as a pace says; nil when it is taken.
    private static func refusal(of argument: String) -> String? {
        do {
            _ = try WorkshopPace(argument: argument)
            return nil
        } catch {
            return error.description
        }
    }
}
