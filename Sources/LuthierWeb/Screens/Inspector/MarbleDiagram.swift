import LuthierFeatures
import ServerMachinery

/// A session's tapped streams drawn as a marble diagram (as RxMarbles draws them), in SVG, by the
/// server: one lane per stream, grouped inputs → effects → states → outputs → each tab's patches,
/// time running left to right over `window` up to `now`.
///
/// A marble's place is its instant, not its distance from now: the marbles sit in one group that
/// the page shifts left as time passes (`View.shift`, from the clock the diagram carries). So a
/// live diagram changes only by the marbles that came and went and the time (`edits(from:)`), and
/// the page moves them along itself. A value is a marble (its text in a
/// `<title>` for hover, and in its label for keyboard focus and screen readers), a completion a
/// bar, a failure a cross, a cancellation a hollow square, a subscription a small tick.
///
/// Every text shown comes from a tap's description and is escaped by the template: a discount code
/// typed as markup is drawn as text.
struct MarbleDiagram: Sendable {
    /// Room for a marble and its short label above or below it.
    static let laneHeight = 46
    static let labelWidth = 170
    static let plotWidth = 760
    static let margin = 10
    /// The element that carries the diagram's time, which the page moves the marbles from.
    static let clockID = "inspector-clock"

    let window: Duration
    let now: Duration
    /// The events within the window (and on the lanes asked for), in the order they were recorded.
    let visible: [TapEvent]
    /// The input whose work is lit up (`TapCause`): its marbles stand out, the others fade.
    let selected: Int?
    /// The address that selects a cause: each marble with a cause links to it.
    let address: @Sendable (Int) -> String

    /// - Parameters:
    ///   - lane: only the lanes whose name starts with this (nil: every lane).
    ///   - selected: the cause to light up.
    ///   - address: the page that selects a cause (nil: marbles link nowhere).
    init(
        events: [TapEvent], window: Duration, now: Duration, lane: String? = nil, selected: Int? = nil,
        address: @escaping @Sendable (Int) -> String = { "?cause=\($0)" }
    ) {
        self.window = window
        self.now = now
        self.selected = selected
        self.address = address
        let start = now - window
        visible = events.filter { $0.at >= start && $0.at <= now && (lane.map($0.lane.hasPrefix) ?? true) }
    }

    /// The order lanes are shown in: what came in, the work it started and what came back, the
    /// folded states, the combined output, then the patches each open tab got.
    static func group(of lane: String) -> Int {
        if lane.hasSuffix(".input") { return 0 }
        if lane.hasSuffix(".effects") || lane.hasSuffix(".effect") { return 1 }
        if lane.hasSuffix(".state") { return 2 }
        if lane.hasPrefix("session.") { return 3 }
        if lane.hasPrefix("tab.") { return 4 }
        return 5
    }

    /// The lanes with an event in the window, in display order.
    var lanes: [String] {
        var seen: [String: Int] = [:]
        for event in visible where seen[event.lane] == nil { seen[event.lane] = seen.count }
        return seen.keys.sorted { a, b in
            let (ga, gb) = (Self.group(of: a), Self.group(of: b))
            return ga != gb ? ga < gb : (seen[a] ?? 0) < (seen[b] ?? 0)
        }
    }

    /// What `fragments/inspector-lanes` draws: every coordinate worked out here, every text
    /// escaped by the template.
    var view: View {
        let lanes = lanes
        let events = Dictionary(grouping: visible, by: \.lane)
        func middle(_ index: Int) -> Int { Self.margin + index * Self.laneHeight + Self.laneHeight / 2 }
        let axisY = Self.margin + max(lanes.count, 1) * Self.laneHeight + 14
        return View(
            width: Self.labelWidth + Self.plotWidth + 2 * Self.margin,
            height: axisY + Self.margin,
            windowSeconds: Int(window.seconds),
            hasSelection: selected != nil,
            isEmpty: lanes.isEmpty,
            emptyY: Self.margin + 18,
            lanes: lanes.enumerated().map { View.Lane(name: $1, y: middle($0)) },
            marbles: lanes.enumerated().flatMap { index, lane in
                marbles(of: events[lane] ?? [], named: lane, lane: index, y: middle(index))
            },
            axisY: axisY, axisStart: Self.labelWidth, axisEnd: Self.labelWidth + Self.plotWidth,
            clock: .init(now: now.milliseconds, scale: String(format: "%.6f", scale)),
            shift: String(format: "%.1f", Double(Self.labelWidth + Self.plotWidth) - Double(now.milliseconds) * scale))
    }

    struct View: Sendable {
        /// A lane: its name at the left, its line from `axisStart` to `axisEnd` at height `y`.
        struct Lane: Sendable, Hashable {
            let name: String
            let y: Int
        }

        struct Marble: Sendable, Hashable {
            /// What a marble says at a glance, ending at it (so that the newest, at "now", stays
            /// in view): the action's argument, a patch's size, or for a run too dense to draw
            /// apart, the run's first value.
            struct Short: Sendable, Hashable {
                let text: String
                let y: Int
            }

            /// Its element's id: its lane, the instant of its first event and its kind, which
            /// stay the same while it is in the window.
            let id: String
            /// Its whole text: its accessible name and its tooltip.
            let label: String
            let short: Short?
            /// Its lane's row, for the keyboard's up and down.
            let lane: Int
            /// The input whose work it was; nil for none (or for a run of several changes).
            let cause: Int?
            /// Where selecting it goes: the same view with its cause lit up.
            let href: String?
            let isCaused: Bool
            let x: Int
            let y: Int
            /// Its figure, drawn here from numbers and class names only (no text of a tap): a dot
            /// for a value, a bar for an end, a cross for a failure, a hollow square for a
            /// cancellation, a tick for a subscription, a ring with its count for a run.
            let figure: String
        }

        let width: Int
        let height: Int
        let windowSeconds: Int
        let hasSelection: Bool
        let isEmpty: Bool
        let emptyY: Int
        let lanes: [Lane]
        let marbles: [Marble]
        let axisY: Int
        let axisStart: Int
        let axisEnd: Int
        /// The time the diagram was drawn at, which the page moves the marbles from.
        let clock: Clock
        /// The marbles' group's shift left, in pixels, at that time: `axisEnd` − now × scale.
        let shift: String

        /// The diagram's time, as the page reads it: `now` in milliseconds on the session's
        /// recorder, and the pixels per millisecond.
        struct Clock: Sendable, Hashable {
            let now: Int64
            let scale: String
        }

        /// The edits that turn `old`'s drawing into this one, for a page that shows `old`: the
        /// marbles that came, changed or went, then the clock. Nil when more than the marbles
        /// changed (a lane came or went): the diagram then goes whole.
        func edits(
            from old: View, marble: (Marble) -> String, clock renderClock: (Clock) -> String
        ) -> [FragmentItem]? {
            guard hasFrame(of: old),
                let edits = FragmentItem.edits(from: old.marbles, to: marbles, id: \.id, render: marble)
            else { return nil }
            guard clock != old.clock else { return edits }
            return edits + [.replace(id: MarbleDiagram.clockID, html: renderClock(clock))]
        }

        /// Whether `other` has the same lanes and frame, so that the marbles alone changed.
        func hasFrame(of other: View) -> Bool {
            lanes == other.lanes && height == other.height && windowSeconds == other.windowSeconds
                && hasSelection == other.hasSelection && isEmpty == other.isEmpty
        }
    }

    /// Pixels per millisecond of the window.
    var scale: Double { Double(Self.plotWidth) / Double(window.milliseconds) }

    /// Where an event at `at` sits in the marbles' group: its instant, scaled.
    func x(of at: Duration) -> Int {
        Int((Double(at.milliseconds) * scale).rounded())
    }
}
