import LuthierDomain

/// The guided build's steps, in order: the seeds' onboarding `FlowStep`, here one question about
/// the guitar per step and a review at the end.
public enum FlowStep: String, CaseIterable, Hashable, Sendable, Codable {
    case shape, color, body, fretboard, review

    /// The field the step asks for; nil for the review.
    public var field: GuitarField? {
        switch self {
        case .shape: .shape
        case .color: .color
        case .body: .body
        case .fretboard: .fretboard
        case .review: nil
        }
    }

    /// 1 for the first step.
    public var number: Int { (Self.allCases.firstIndex(of: self) ?? 0) + 1 }

    /// The step after this one; nil after the review.
    public var next: FlowStep? {
        let all = Self.allCases
        guard let index = all.firstIndex(of: self), index + 1 < all.count else { return nil }
        return all[index + 1]
    }

    /// The step before this one; nil on the first.
    public var previous: FlowStep? {
        let all = Self.allCases
        guard let index = all.firstIndex(of: self), index > 0 else { return nil }
        return all[index - 1]
    }

    /// What the progress indicator and the heading call it.
    public var title: String { field?.title ?? "Review" }

    /// The step that asks for `field`.
    public init(field: GuitarField) {
        switch field {
        case .shape: self = .shape
        case .color: self = .color
        case .body: self = .body
        case .fretboard: self = .fretboard
        }
    }
}
