import LuthierDomain

/// Why the guide refused an action, as a sentence naming the field and what is allowed there. The
/// state is left as it was.
public enum GuideRefusal: Error, Hashable, Sendable {
    /// Next on a step not answered yet.
    case unanswered(FlowStep)
    /// An answer to another step's field (a stale tab, a forged post).
    case notThisStep(FlowStep, answered: [GuitarField])
    /// An answer with no field, or on the review, which asks nothing.
    case nothingToAnswer(FlowStep)
    /// Back on the first step.
    case atTheStart
    /// Next on the review.
    case atTheEnd
    /// Finish before the review.
    case notAtReview(FlowStep)

    public var message: String {
        switch self {
        case .unanswered(let step):
            "Choose a \(step.title.lowercased()) first: Next moves on once the \(step.title) step is answered."
        case .notThisStep(let step, let fields):
            "The guide is at the \(step.title) step; it takes \(Self.allowed(step)), not "
                + fields.map(\.rawValue).joined(separator: " and ") + "."
        case .nothingToAnswer(let step):
            step == .review
                ? "The review asks nothing; go Back to change an answer, or finish the guide."
                : "The \(step.title) step takes \(Self.allowed(step))."
        case .atTheStart:
            "The guide is at its first step; there is no step before Shape."
        case .atTheEnd:
            "The guide is at the review, its last step; finish it with the builder or the checkout."
        case .notAtReview(let step):
            "The guide is at the \(step.title) step; it can be finished from the review, after the Fretboard step."
        }
    }

    /// "shape (casual, chunky, longV, sharpV)": the step's field and its values.
    private static func allowed(_ step: FlowStep) -> String {
        guard let field = step.field else { return "no field" }
        return "\(field.rawValue) (\(field.allowedValues.joined(separator: ", ")))"
    }
}
