import LuthierFeatures

/// The side panel of a selected marble: everything its input caused, step by step. Each store step
/// shows its action and only the fields of the state it changed, before and after; each patch
/// shows the fragments it replaced on every open tab.
struct CauseView: Sendable {
    struct Step: Sendable {
        /// The fields the step changed; nil when it changed none.
        struct Difference: Sendable {
            let rows: [JSONDifference.Change]
        }

        let title: String
        let refusal: String?
        let difference: Difference?
        let isUnchanged: Bool
    }

    /// The patches the change published: each one's replaced fragments, by target.
    struct Patches: Sendable {
        let targets: [String]
    }

    let heading: String
    let steps: [Step]
    let patches: Patches?
    let isEmpty: Bool
    /// The same view with nothing lit up.
    let clear: String

    init(cause: Int, recorder: TapRecorder, clear: String) {
        heading = "Change \(cause)"
        self.clear = clear
        steps = recorder.traceSteps.filter { $0.cause == cause }.map { step in
            let changes = step.after.map { JSONDifference.changes(from: step.before, to: $0) } ?? []
            return Step(
                title: MomentView.describe(step), refusal: step.refusal,
                difference: changes.isEmpty ? nil : Step.Difference(rows: changes),
                isUnchanged: step.refusal == nil && changes.isEmpty)
        }
        let targets = recorder.versions(causedBy: cause).map { $0.targets.joined(separator: ", ") }
        patches = targets.isEmpty ? nil : Patches(targets: targets)
        isEmpty = steps.isEmpty && targets.isEmpty
    }
}
