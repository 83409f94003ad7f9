import Testing

@testable import LuthierWeb

@Suite struct OpenFileLimitTests {
    @Test("the soft limit is raised as far as the caps need, no further than the hard limit")
    func raisedToWhatIsNeeded() {
        #expect(OpenFileLimit.plan(soft: 1_024, hard: 1_048_576, needed: 16_064) == (16_064, nil))
        // Already enough: left as it is.
        #expect(OpenFileLimit.plan(soft: 65_536, hard: 1_048_576, needed: 16_064) == (65_536, nil))
    }

    @Test("a hard limit under what the caps need is raised to and warned about")
    func warnsWhenTheCapsCannotFit() {
        let (soft, warning) = OpenFileLimit.plan(soft: 256, hard: 4_096, needed: 16_064)
        #expect(soft == 4_096)
        #expect(warning?.contains("4096") == true)
        #expect(warning?.contains("--max-connections") == true)
    }

    @Test("raising in this process leaves at least what a small cap needs")
    func raisesInThisProcess() {
        #expect(OpenFileLimit.raise(forConnections: 100) == nil)
        #expect(OpenFileLimit.current >= 164)
    }
}
