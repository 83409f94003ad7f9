/// How long the workshop spends on each stage of an order (wood selection, body shaping,
/// finishing, setup) before it moves on.
///
/// A real workshop takes days (`days`, the default); a demo takes seconds (`demo`), so that a
/// kiosk shows orders moving across the board while people watch.
public struct WorkshopPace: Hashable, Sendable {
    /// The time from the start of one stage to the start of the next.
    public var perStage: Duration

    public init(perStage: Duration) {
        self.perStage = perStage
    }

    /// One day per stage: the default.
    public static let days = WorkshopPace(perStage: .seconds(86_400))
    /// Ten seconds per stage, for demos.
    public static let demo = WorkshopPace(perStage: .seconds(10))

    /// The longest pace accepted: 30 days per stage.
    public static let longest = Duration.seconds(30 * 86_400)

    /// Why a `--workshop-pace` setting was refused, in words an operator can act on.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What was given.
        public var argument: String
        public var description: String
    }

    /// Reads a pace as the command line writes it: `days`, `demo`, or a whole positive amount
    /// with its unit, `s`, `m`, `h` or `d` (`30s`, `5m`, `2h`, `1d`), at most 30 days.
    public init(argument: String) throws(ParseError) {
        let allowed = "write days, demo, or a time per stage such as 30s, 5m, 2h or 1d (at most 30d)"
        switch argument {
        case "days":
            self = .days
            return
        case "demo":
            self = .demo
            return
        default:
            break
        }
        guard let unit = argument.last, let seconds = Self.secondsPerUnit[unit] else {
            throw ParseError(argument: argument, description: "'\(argument)' is not a workshop pace; \(allowed).")
        }
        let amount = argument.dropLast()
        guard !amount.isEmpty, amount.utf8.allSatisfy({ (48...57).contains($0) }) else {
            throw ParseError(argument: argument, description: "'\(argument)' is not a workshop pace; \(allowed).")
        }
        let tooLong = ParseError(
            argument: argument, description: "'\(argument)': a workshop pace is at most 30 days; \(allowed).")
        // Ten significant digits are more than 30 days in any unit; more could overflow below.
        let digits = amount.drop(while: { $0 == "0" })
        guard digits.count <= 10 else { throw tooLong }
        let count = Int(digits) ?? 0
        guard count > 0 else {
            throw ParseError(
                argument: argument, description: "'\(argument)': a workshop pace must be more than zero; \(allowed).")
        }
        let perStage = Duration.seconds(count * seconds)
        guard perStage <= Self.longest else { throw tooLong }
        self.init(perStage: perStage)
    }

    private static let secondsPerUnit: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
}
