import Foundation
import LuthierFeatures

/// What the incident list shows.
struct IncidentsPage: Sendable {
    /// One incident as the list and its own page head it.
    struct Row: Sendable {
        let id: String
        let at: String
        let request: String
        let status: Int
        let sentence: String
        let steps: Int
        /// "Happened 3 more times" when the failure came again with no new step.
        let repeats: String?

        init(_ incident: Incident) {
            id = incident.id
            at = CheckoutOutput.format(incident.at)
            request = "\(incident.failure.method) \(incident.failure.route)"
            status = incident.failure.status
            sentence = incident.failure.sentence
            steps = incident.steps
            repeats =
                incident.repeats == 0
                ? nil : "Happened \(incident.repeats) more time\(incident.repeats == 1 ? "" : "s")"
        }
    }

    let rows: [Row]
    let isEmpty: Bool
    /// What is kept, and for how long: "at most 100 incidents, for 7 days".
    let bounds: String

    init(incidents: [Incident], limits: IncidentLog.Limits) {
        rows = incidents.map(Row.init)
        isEmpty = incidents.isEmpty
        bounds = "at most \(limits.count) incidents, for \(Self.describe(limits.retention))"
    }

    /// A retention as a person says it: "7 days", "2 hours", "90 seconds".
    static func describe(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        let (count, unit): (Int64, String) =
            if seconds >= 86_400, seconds % 86_400 == 0 {
                (seconds / 86_400, "day")
            } else if seconds >= 3_600, seconds % 3_600 == 0 {
                (seconds / 3_600, "hour")
            } else if seconds >= 60, seconds % 60 == 0 {
                (seconds / 60, "minute")
            } else {
                (seconds, "second")
            }
        return "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}

/// What one incident's page shows: the failure, the steps that led to it, and their replay.
struct IncidentPage: Sendable {
    struct Step: Sendable {
        let number: Int
        /// Seconds since the session's recorder began.
        let at: String
        let store: String
        let origin: String
        let action: String
        let refusal: String?
    }

    let incident: IncidentsPage.Row
    let steps: [Step]
    let hasSteps: Bool
    /// "The session took 12 steps before these, which its recorder no longer kept."
    let dropped: String?
    /// `luthier replay`'s verdict on the trace.
    let replay: String

    init(incident: Incident, trace: SessionTrace, replay: String) {
        self.incident = IncidentsPage.Row(incident)
        steps = trace.steps.map { step in
            Step(
                number: step.number, at: String(format: "%.3f s", step.at.seconds),
                store: "\(step.store)#\(step.instance)", origin: step.origin.rawValue,
                action: String("\(step.action)".prefix(160)), refusal: step.refusal)
        }
        hasSteps = !trace.steps.isEmpty
        dropped =
            trace.dropped == 0
            ? nil
            : "The session took \(trace.dropped) step\(trace.dropped == 1 ? "" : "s") before these, "
                + "which its recorder no longer kept."
        self.replay = replay
    }
}
