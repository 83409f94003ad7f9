import Foundation
import LuthierFeatures
import ServerMachinery

/// What the inspector template shows (stored properties only: the templates read by reflection).
struct InspectPage: Sendable {
    struct WindowLink: Sendable {
        let href: String
        let label: String
        let isCurrent: Bool
    }

    let heading: String
    let hasSession: Bool
    /// The drawn lanes (the partial's output, already escaped).
    let lanes: String
    let eventsURL: String?
    let windows: [WindowLink]
    let base: String
    let lane: String
    let scrubber: Scrubber?
    let moment: MomentView?
    let cause: CauseView?
    /// Whether every open page of the session outlines what each change updates.
    let highlighting: Bool

    /// - Parameters:
    ///   - diagram: nil when the visitor has no session yet.
    ///   - scrubber: nil when nothing is recorded for a trace (or for the shop's view).
    ///   - moment: the moment the scrubber picked.
    init(
        view: InspectController.View, diagram: Fragment?, isShop: Bool, scrubber: Scrubber? = nil,
        moment: MomentView? = nil, highlighting: Bool = false, cause: CauseView? = nil
    ) {
        self.highlighting = highlighting
        self.scrubber = scrubber
        self.moment = moment
        self.cause = cause
        heading = isShop ? "The shop's streams" : "Your session's streams"
        hasSession = diagram != nil
        lanes = diagram?.html ?? ""
        eventsURL = diagram == nil ? nil : "\(view.base)/events\(view.query())"
        base = view.base
        lane = view.lane ?? ""
        windows = InspectController.windows.map { seconds in
            WindowLink(
                href: view.base + view.query(window: seconds),
                label: seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min", isCurrent: seconds == view.window)
        }
    }
}

/// The scrubber: a slider over the steps the recording keeps, in a form that works without
/// JavaScript (Show), keeping the window and the lane filter.
struct Scrubber: Sendable {
    let first: Int
    let last: Int
    let value: Int
    let window: Int
    let lane: String

    /// Nil when no step is kept yet.
    init?(steps: [TraceStep], view: InspectController.View) {
        guard let first = steps.first?.number, let last = steps.last?.number else { return nil }
        self.first = first
        self.last = last
        value = min(max(view.moment ?? last, first), last)
        window = view.window
        lane = view.lane ?? ""
    }
}
