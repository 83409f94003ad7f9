import Foundation
import LuthierFeatures

extension MarbleDiagram {
    /// Marbles closer than this on a lane are drawn as one, with a count: a burst of clicks stays
    /// readable instead of a smear of overlapping dots.
    static let closest = 24
    /// The longest label drawn beside a marble.
    static let shortLimit = 12

    /// The marbles of one lane's events, oldest first: each value with its short label, and each
    /// run of values too close to draw apart as one marble with a count.
    func marbles(of events: [TapEvent], named name: String, lane: Int, y: Int) -> [View.Marble] {
        var runs: [[TapEvent]] = []
        for event in events {
            if let first = runs.last?.first, x(of: event.at) - x(of: first.at) < Self.closest,
                event.kind == .value, first.kind == .value
            {
                runs[runs.count - 1].append(event)
            } else {
                runs.append([event])
            }
        }
        return runs.map { run in
            // Labels take turns above and below the lane by change (one change's marbles are
            // neighbours of the next one's), else by where they fall, so that neighbours do not
            // write over each other, and a label stays where it is while older marbles leave.
            let turn = run[0].cause ?? x(of: run[0].at) / Self.closest
            let shortY = turn.isMultiple(of: 2) ? y - 13 : y + 21
            let id = "marble-\(name)-\(run[0].at.milliseconds)-\(run[0].kind.rawValue)"
            return run.count == 1
                ? marble(run[0], id: id, lane: lane, y: y, shortY: shortY)
                : group(run, id: id, lane: lane, y: y, shortY: shortY)
        }
    }

    private func marble(_ event: TapEvent, id: String, lane: Int, y: Int, shortY: Int) -> View.Marble {
        let x = x(of: event.at)
        let cause = event.cause.map { ", change \($0)" } ?? ""
        return View.Marble(
            id: id,
            label: "\(event.lane): \(Self.what(event)) at \(Self.seconds(event.at))\(cause)",
            short: event.kind == .value ? .init(text: Self.short(event.text), y: shortY) : nil, lane: lane,
            cause: event.cause, href: event.cause.map(address), isCaused: event.cause != nil && event.cause == selected,
            x: x, y: y, figure: Self.figure(event.kind, x: x, y: y))
    }

    /// A run of values as one marble: its count inside, its values in its label (read on focus and
    /// hover), and the change it belongs to when all of them belong to one.
    private func group(_ run: [TapEvent], id: String, lane: Int, y: Int, shortY: Int) -> View.Marble {
        let x = x(of: run[run.count - 1].at)
        let causes = Set(run.map(\.cause))
        let cause = causes.count == 1 ? run[0].cause : nil
        let values = run.prefix(8).map(\.text).joined(separator: "; ") + (run.count > 8 ? "; …" : "")
        let span = "from \(Self.seconds(run[0].at)) to \(Self.seconds(run[run.count - 1].at))"
        return View.Marble(
            id: id,
            label: "\(run[0].lane): \(run.count) values \(span)\(cause.map { ", change \($0)" } ?? ""): \(values)",
            short: .init(text: Self.short(run[0].text) + " …", y: shortY), lane: lane, cause: cause,
            href: cause.map(address), isCaused: selected != nil && run.contains { $0.cause == selected },
            x: x, y: y,
            figure: #"<circle cx="\#(x)" cy="\#(y)" r="10" class="marble-group"/>"#
                + #"<text x="\#(x)" y="\#(y)" dy="4" text-anchor="middle" class="marble-count">\#(run.count)</text>"#)
    }

    /// The figure of one event of `kind` at (`x`, `y`).
    static func figure(_ kind: TapEvent.Kind, x: Int, y: Int) -> String {
        let (top, bottom, left, right) = (y - 6, y + 6, x - 6, x + 6)
        switch kind {
        case .value: return #"<circle cx="\#(x)" cy="\#(y)" r="7" class="marble-value"/>"#
        case .subscription:
            return #"<line x1="\#(x)" y1="\#(top)" x2="\#(x)" y2="\#(bottom)" class="marble-subscription"/>"#
        case .completion: return #"<line x1="\#(x)" y1="\#(y - 10)" x2="\#(x)" y2="\#(y + 10)" class="marble-end"/>"#
        case .failure:
            let cross = "M\(left) \(top)L\(right) \(bottom)M\(right) \(top)L\(left) \(bottom)"
            return #"<path d="\#(cross)" class="marble-failure"/>"#
        case .cancellation:
            return #"<rect x="\#(left)" y="\#(top)" width="12" height="12" class="marble-cancel"/>"#
        }
    }

    private static func what(_ event: TapEvent) -> String {
        switch event.kind {
        case .subscription: "subscribed"
        case .value: event.text
        case .completion: "finished"
        case .failure: "failed: \(event.text)"
        case .cancellation: "cancelled"
        }
    }

    /// What a value says at a glance: an action's argument (`change(color: Sky)` → `color: Sky`),
    /// a patch's size (`version 42, 813 bytes` → `813 bytes`), or the start of a state.
    static func short(_ text: String) -> String {
        var shown = Substring(text)
        if shown.hasPrefix("version "), let comma = shown.range(of: ", ") {
            shown = shown[comma.upperBound...]
        } else if let open = shown.firstIndex(of: "("), shown.hasSuffix(")"), shown.index(after: open) < shown.endIndex
        {
            let argument = shown[shown.index(after: open)..<shown.index(before: shown.endIndex)]
            if !argument.isEmpty { shown = argument }
        }
        return shown.count <= shortLimit ? String(shown) : String(shown.prefix(shortLimit - 1)) + "…"
    }

    private static func seconds(_ at: Duration) -> String {
        String(format: "%.3f s", at.seconds)
    }
}
