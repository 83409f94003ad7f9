import LuthierDomain

/// Everything a customer does in the guided build.
public enum GuideAction: Hashable, Sendable, Codable {
    /// The answer to the step's question: a change setting exactly the step's field.
    case answer(GuitarChange)
    /// On to the next step, once this one is answered.
    case next
    /// Back a step; every answer is kept.
    case back
    /// Every answer forgotten, back to the first step.
    case restart
    /// From the review: the guide's guitar becomes the builder's (`BuildState` takes it).
    case finish
}
