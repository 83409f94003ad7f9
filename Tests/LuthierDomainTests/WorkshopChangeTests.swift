import Testing

@testable import LuthierDomain

@Suite struct WorkshopChangeTests {
    @Test func payloadsReadBackAndNoiseIsSkipped() {
        for change in [WorkshopChange.placed(number: "LU-7K3M9Q"), .advanced(number: "LU-A"), .changed(number: "LU-B")]
        {
            #expect(WorkshopChange(payload: change.payload) == change)
        }
        for noise in ["", "placed", "placed:", "listening:", "shipped:LU-A", String(repeating: "x", count: 40)] {
            #expect(WorkshopChange(payload: noise) == nil, "\(noise)")
        }
    }
}
