import Testing

@testable import ServerMachinery

@Suite struct OpenFileLimitTests {
    @Test("the soft limit is raised as far as the caps need, no further than the hard limit")
    func raisedToWhatIsNeeded() {
        let raised = OpenFileLimit.plan(soft: 1_024, hard: 1_048_576, maxConnections: 16_000)
        #expect(raised == OpenFileLimit.Plan(soft: 16_064, connections: 16_000, warning: nil))
        // Already enough: left as it is.
        let enough = OpenFileLimit.plan(soft: 65_536, hard: 1_048_576, maxConnections: 16_000)
        #expect(enough == OpenFileLimit.Plan(soft: 65_536, connections: 16_000, warning: nil))
    }

    @Test("under a hard limit too low for the cap, the cap is lowered to fit and the reason is logged")
    func lowersTheCapToFit() throws {
        let plan = OpenFileLimit.plan(soft: 256, hard: 4_096, maxConnections: 16_000)
        #expect(plan.soft == 4_096)
        // The cap that fits, so that visitors past it get the shop's 503 rather than `EMFILE`.
        #expect(plan.connections == 4_096 - OpenFileLimit.reserve)
        let warning = try #require(plan.warning)
        #expect(warning.contains("4096"))
        #expect(warning.contains("--max-connections"))
        #expect(warning.contains("\(4_096 - OpenFileLimit.reserve) connections"))
    }

    @Test("a limit under the reserve still leaves a cap of one connection")
    func aTinyLimitLeavesOneConnection() {
        let plan = OpenFileLimit.plan(soft: 32, hard: 32, maxConnections: 100)
        #expect(plan.soft == 32)
        #expect(plan.connections == 1)
        #expect(plan.warning != nil)
    }

    @Test("raising in this process leaves at least what a small cap needs")
    func raisesInThisProcess() {
        #expect(
            OpenFileLimit.raise(forConnections: 100)
                == OpenFileLimit.Plan(
                    soft: OpenFileLimit.current, connections: 100, warning: nil))
        #expect(OpenFileLimit.current >= 164)
    }
}
