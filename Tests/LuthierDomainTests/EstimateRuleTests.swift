import LuthierDomain
import Testing

/// The estimate is the domain's rule: a store only counts the open orders and reads the stock.
@Suite("EstimateRule")
struct EstimateRuleTests {
    @Test(arguments: [
        // (open orders, body stock, fretboard stock, months)
        (0, 40, 50, 2),
        (1, 40, 50, 3),
        (10, 40, 50, 3),
        (11, 40, 50, 4),
        (20, 40, 50, 4),
        (21, 40, 50, 5),
        (0, 5, 50, 3),
        (0, 6, 50, 2),
        (0, 40, 5, 3),
        (0, 0, 0, 3),
        (11, 3, 2, 5),
    ])
    func theEstimateRuleFollowsBacklogAndScarcity(openOrders: Int, body: Int, fretboard: Int, months: Int) {
        let rule = EstimateRule.standard
        #expect(rule.estimate(openOrders: openOrders, bodyStock: body, fretboardStock: fretboard).months == months)
    }

    @Test func moreOpenOrdersNeverShortenTheEstimate() {
        let months = (0...100).map {
            EstimateRule.standard.estimate(openOrders: $0, bodyStock: 40, fretboardStock: 50).months
        }
        #expect(zip(months, months.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(months.last ?? 0 > months.first ?? 0)
    }
}
