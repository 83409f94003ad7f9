import LuthierDomain

/// The guided build's state machine: the step it is on and the answers given so far (the seeds'
/// onboarding, folded from the step inputs by `reduce`).
///
/// Next moves on only from an answered step; Back never forgets an answer; the review comes after
/// every question has been answered, since Next cannot skip one. Saved with the session, so a
/// refresh or a restart resumes at the same step.
public struct GuideState: Hashable, Sendable, Codable {
    public var step: FlowStep
    public var shape: Shape?
    public var color: Color?
    public var body: BodyWood?
    public var fretboard: FretboardWood?

    public init(
        step: FlowStep = .shape, shape: Shape? = nil, color: Color? = nil, body: BodyWood? = nil,
        fretboard: FretboardWood? = nil
    ) {
        self.step = step
        self.shape = shape
        self.color = color
        self.body = body
        self.fretboard = fretboard
    }

    /// The guitar so far: each answer given, and the standard guitar's choice where none is yet.
    public var guitar: Guitar {
        Guitar(
            shape: shape ?? .defaultOption, color: color ?? .defaultOption, body: body ?? .defaultOption,
            fretboard: fretboard ?? .defaultOption)
    }

    /// Whether `step` has its answer (the review needs none).
    public func isAnswered(_ step: FlowStep) -> Bool {
        switch step {
        case .shape: shape != nil
        case .color: color != nil
        case .body: body != nil
        case .fretboard: fretboard != nil
        case .review: true
        }
    }

    /// Why `action` cannot be taken now, or nil when it can.
    public func refusal(_ action: GuideAction) -> GuideRefusal? {
        switch action {
        case .answer(let change):
            let fields = Self.fields(of: change)
            guard let asked = step.field, !fields.isEmpty else { return .nothingToAnswer(step) }
            return fields == [asked] ? nil : .notThisStep(step, answered: fields)
        case .next:
            if step == .review { return .atTheEnd }
            return isAnswered(step) ? nil : .unanswered(step)
        case .back:
            return step.previous == nil ? .atTheStart : nil
        case .restart:
            return nil
        case .finish:
            return step == .review ? nil : .notAtReview(step)
        }
    }

    /// The pure step of the guide's fold (`scan`): the next state, or this one unchanged when the
    /// action is refused (`refusal` says why).
    public static func reduce(_ state: GuideState, _ action: GuideAction) -> GuideState {
        guard state.refusal(action) == nil else { return state }
        var next = state
        switch action {
        case .answer(let change):
            next.shape = change.shape ?? state.shape
            next.color = change.color ?? state.color
            next.body = change.body ?? state.body
            next.fretboard = change.fretboard ?? state.fretboard
        case .next:
            next.step = state.step.next ?? state.step
        case .back:
            next.step = state.step.previous ?? state.step
        case .restart:
            next = GuideState()
        case .finish:
            break
        }
        return next
    }

    /// The fields a change sets, in page order.
    static func fields(of change: GuitarChange) -> [GuitarField] {
        [
            change.shape.map { _ in GuitarField.shape }, change.color.map { _ in .color },
            change.body.map { _ in .body }, change.fretboard.map { _ in .fretboard },
        ].compactMap { $0 }
    }
}
