import LuthierDomain

/// Everything the guided build's page shows, derived from `GuideState` by a pure function (the
/// seeds' onboarding outputs: which step, whether Next is enabled, where focus goes and what is
/// announced).
public struct GuideOutput: Hashable, Sendable {
    /// The step's raw name (`shape` … `review`): what the page's script compares to move focus.
    public var step: String
    /// "Step 2 of 5: Color": the heading focus moves to, and what a screen reader announces.
    public var heading: String
    public var intro: String
    /// The step's field name; nil on the review.
    public var field: String?
    /// The step's choices, each with what it changes; empty on the review.
    public var options: [GuideOption]
    public var isReview: Bool
    /// The answers, one row per question, on the review.
    public var answers: [GuideAnswerRow]
    public var progress: [GuideProgressStep]
    public var nextEnabled: Bool
    public var backEnabled: Bool
    /// The guitar so far, drawn live as the steps are answered.
    public var guitar: Guitar
    public var artwork: GuitarArtwork
    /// "So far: Long V, Sky; body and fretboard to come", or the whole description on the review.
    public var summary: String
    public var price: String

    public init(state: GuideState) {
        let step = state.step
        self.step = step.rawValue
        heading = "Step \(step.number) of \(FlowStep.allCases.count): \(step.title)"
        intro = GuideNotes.intro(step)
        field = step.field?.rawValue
        options = Self.options(for: step, state: state)
        isReview = step == .review
        answers =
            isReview
            ? [
                GuideAnswerRow(title: "Shape", answer: state.guitar.shape.pricedName),
                GuideAnswerRow(title: "Color", answer: state.guitar.color.pricedName),
                GuideAnswerRow(title: "Body", answer: state.guitar.body.pricedName),
                GuideAnswerRow(title: "Fretboard", answer: state.guitar.fretboard.pricedName),
            ] : []
        progress = FlowStep.allCases.map { GuideProgressStep(step: $0, current: step, state: state) }
        nextEnabled = state.refusal(.next) == nil
        backEnabled = state.refusal(.back) == nil
        guitar = state.guitar
        artwork = GuitarArtwork(guitar: state.guitar)
        summary = Self.summary(state)
        price = state.guitar.price.formatted()
    }

    private static func options(for step: FlowStep, state: GuideState) -> [GuideOption] {
        switch step {
        case .shape: Shape.allCases.map { GuideOption($0, selected: state.shape, note: GuideNotes.note($0)) }
        case .color: Color.allCases.map { GuideOption($0, selected: state.color, note: GuideNotes.note($0)) }
        case .body: BodyWood.allCases.map { GuideOption($0, selected: state.body, note: GuideNotes.note($0)) }
        case .fretboard:
            FretboardWood.allCases.map { GuideOption($0, selected: state.fretboard, note: GuideNotes.note($0)) }
        case .review: []
        }
    }

    private static func summary(_ state: GuideState) -> String {
        let chosen = [state.shape?.name, state.color?.name, state.body?.name, state.fretboard?.name].compactMap { $0 }
        let open = FlowStep.allCases.compactMap(\.field).filter { !state.isAnswered(FlowStep(field: $0)) }
        if open.isEmpty { return state.guitar.description }
        let toCome = open.map { $0.title.lowercased() }
        let rest =
            toCome.count == 1
            ? toCome[0] : toCome.dropLast().joined(separator: ", ") + " and " + toCome[toCome.count - 1]
        return chosen.isEmpty ? "Nothing chosen yet" : "So far: \(chosen.joined(separator: ", ")); \(rest) to come"
    }
}

/// One choice of a step, with what it changes in sound and look.
public struct GuideOption: Hashable, Sendable {
    public var field: String
    public var value: String
    /// "Long V (+$75)".
    public var label: String
    public var note: String
    /// Unique on the page, and stable across patches so the script keeps focus on it.
    public var inputID: String
    public var noteID: String
    public var isSelected: Bool

    init<Option: GuitarOption>(_ option: Option, selected: Option?, note: String) {
        field = Option.field.rawValue
        value = option.rawValue
        label = option.pricedName
        self.note = note
        inputID = "guide-\(field)-\(value)"
        noteID = "guide-\(field)-\(value)-note"
        isSelected = option == selected
    }
}

/// One answer on the review.
public struct GuideAnswerRow: Hashable, Sendable {
    public var title: String
    public var answer: String
}

/// One step in the progress indicator.
public struct GuideProgressStep: Hashable, Sendable {
    public var title: String
    public var isCurrent: Bool
    public var isAnswered: Bool
    /// "Shape, answered", "Color, current step", "Body, to come": for screen readers.
    public var status: String

    init(step: FlowStep, current: FlowStep, state: GuideState) {
        title = step.title
        isCurrent = step == current
        isAnswered = step != .review && state.isAnswered(step)
        status = isCurrent ? "current step" : isAnswered ? "answered" : "to come"
    }
}
