import Foundation
import Synchronization

/// One thing a tapped stream did, as Combine's `print(_:)` tells it: it was subscribed to, sent a
/// value, finished, failed or was cancelled, at an instant on the recorder's clock.
public struct TapEvent: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case subscription, value, completion, failure, cancellation
    }

    /// The tapped stream's name: `checkout.input`, `build.state`, `session.output`, …
    public var lane: String
    public var kind: Kind
    /// A short description of the value or failure (at most `TapRecorder.textLimit` characters,
    /// control characters shown as spaces); empty for the other kinds.
    public var text: String
    /// When, as the time since the recorder was made on its clock.
    public var at: Duration
    /// The input whose work this was (`TapCause`), if any.
    public var cause: Int?

    public init(lane: String, kind: Kind, text: String = "", at: Duration, cause: Int? = nil) {
        self.lane = lane
        self.kind = kind
        self.text = text
        self.at = at
        self.cause = cause
    }

    /// The event as Combine's `print` writes it: "checkout.input: receive value: (currencyChosen(EUR))".
    public var printed: String {
        switch kind {
        case .subscription: "\(lane): receive subscription: (\(text))"
        case .value: "\(lane): receive value: (\(text))"
        case .completion: "\(lane): receive finished"
        case .failure: "\(lane): receive error: (\(text))"
        case .cancellation: "\(lane): receive cancel"
        }
    }
}

/// Where taps write: a bounded ring of the latest events (one per session, one for the shop) and,
/// when tracing, a line per event; and the store steps that make a session's trace.
///
/// Recording costs one atomic load per tap while it is off: nothing is described, nothing kept.
/// It is on while someone watches (`watch()`, an open inspector) or always when tracing
/// (`LOG_LEVEL=trace`). The ring never holds more than `capacity` events, so a recorder left on
/// for a day does not grow.
///
/// Store steps are kept even while nobody watches, as a flight recorder keeps the last minutes:
/// the last `flightCapacity` steps within `flightBudget` bytes, so that when a request fails the
/// steps that led to it can be kept with the failure (`/admin/incidents`). While recording, the
/// trace's larger bounds apply instead.
public final class TapRecorder: Sendable {
    /// The longest description kept; longer ones end with "…".
    public static let textLimit = 80

    /// The latest `capacity` elements, the oldest overwritten first.
    private struct Ring<Element> {
        let capacity: Int
        var elements: [Element] = []
        /// Where the next element goes once the ring is full.
        var next = 0
        /// Elements recorded since the recorder was made (the ring keeps the last `capacity`).
        var recorded = 0

        mutating func append(_ element: Element) {
            guard capacity > 0 else { return }
            if elements.count < capacity {
                elements.append(element)
            } else {
                elements[next] = element
            }
            next = (next + 1) % capacity
            recorded += 1
        }

        /// The elements kept, oldest first.
        var inOrder: [Element] {
            guard elements.count == capacity else { return elements }
            return Array(elements[next...] + elements[..<next])
        }
    }

    /// A trace's steps, oldest first, within a count and a weight in bytes (`TraceStep.bytes`):
    /// the oldest go first when either is full.
    private struct StepLog {
        var elements: [TraceStep] = []
        var bytes = 0
        /// Steps recorded since the recorder was made (the log keeps the last ones).
        var recorded = 0
        /// Inputs numbered so far (`nextCause`).
        var causes = 0
        /// The newest versions of the session's output, each with the input that caused it, for
        /// the streams that write them later, on their own threads (`cause(ofVersion:)`).
        var versions: [VersionCause] = []

        mutating func dropOldest(releasingTo shared: TraceBudget?) {
            let oldest = elements.removeFirst()
            bytes -= oldest.bytes
            shared?.release(oldest.bytes)
        }

        /// Lets the oldest steps go until the log holds fewer than `capacity` (none for 0) and
        /// has room for `cost` more bytes within `budget`.
        mutating func makeRoom(capacity: Int, budget: Int, cost: Int = 0, releasingTo shared: TraceBudget?) {
            while !elements.isEmpty, elements.count >= capacity || bytes + cost > budget {
                dropOldest(releasingTo: shared)
            }
        }
    }

    public let capacity: Int
    /// The store steps kept for a trace (`/inspect/trace`); 0 keeps none (the shop's recorder).
    public let traceCapacity: Int
    /// The bytes a trace's steps may weigh (`TraceStep.bytes`), for one session.
    public let traceBudget: Int
    /// The store steps kept while nobody records (the flight recorder); 0 keeps none then.
    public let flightCapacity: Int
    /// The bytes those steps may weigh.
    public let flightBudget: Int
    /// The bytes every session's trace may weigh together, if the shop set a bound.
    private let sharedBudget: TraceBudget?
    private let start: @Sendable () -> Duration
    /// Wall-clock time, stamped on each step (what a reducer reading the date saw).
    let date: @Sendable () -> Date
    private let log: (@Sendable (TapEvent) -> Void)?
    private let watchers = Atomic<Int>(0)
    /// The end of a lease (`lease(for:)`) in nanoseconds on the recorder's stopwatch; 0 for none,
    /// so that the clock is read only while a lease was ever given.
    private let leaseEnd = Atomic<Int64>(0)
    private let ring: Mutex<Ring<TapEvent>>
    private let steps: Mutex<StepLog>
    private let instances = Atomic<Int>(0)
    /// While the inspector's "Highlight updates" is on: it records, and patches name their cause.
    private let highlighted = Atomic<Bool>(false)
    /// The most versions `noteCause(ofVersion:)` keeps.
    static let versionsKept = 64

    /// A version of the session's output, the input that caused it and the targets it replaced.
    public struct VersionCause: Sendable {
        public let version: Int
        public let cause: Int
        public let targets: [String]
    }

    /// - Parameters:
    ///   - capacity: the events kept (the oldest go first).
    ///   - traceCapacity: the store steps kept for a trace (the oldest go first).
    ///   - now: wall-clock time, stamped on each step.
    ///   - log: told of every event as it is recorded (tracing); recording is then always on.
    ///   - traceBudget: the bytes this trace's steps may weigh; the oldest go first past it.
    ///   - sharedBudget: the bytes every recorder sharing it may weigh together; past it a
    ///     recorder lets its own oldest steps go, and keeps no new one while it has none left.
    ///   - flightCapacity: the store steps kept while not recording (the oldest go first); at
    ///     most `traceCapacity`.
    ///   - flightBudget: the bytes those steps may weigh; at most `traceBudget`.
    public init(
        capacity: Int, traceCapacity: Int = 0, clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date = Date.init, log: (@Sendable (TapEvent) -> Void)? = nil,
        traceBudget: Int = .max, sharedBudget: TraceBudget? = nil, flightCapacity: Int = 0, flightBudget: Int = 0
    ) {
        self.capacity = max(capacity, 1)
        self.traceCapacity = max(traceCapacity, 0)
        self.traceBudget = max(traceBudget, 0)
        self.flightCapacity = min(max(flightCapacity, 0), self.traceCapacity)
        self.flightBudget = min(max(flightBudget, 0), self.traceBudget)
        self.sharedBudget = sharedBudget
        self.log = log
        date = now
        start = stopwatch(on: clock)
        ring = Mutex(Ring(capacity: self.capacity))
        steps = Mutex(StepLog())
    }

    deinit {
        sharedBudget?.release(steps.withLock { $0.bytes })
    }

    /// Whether taps record now.
    public var isRecording: Bool {
        if log != nil || watchers.load(ordering: .relaxed) > 0 { return true }
        let end = leaseEnd.load(ordering: .relaxed)
        return end > 0 && start().nanoseconds < end
    }

    /// Records for `duration` from now, without a watcher to stop it (a page without JavaScript
    /// that refreshes itself renews it each time).
    public func lease(for duration: Duration) {
        let end = (start() + duration).nanoseconds
        var current = leaseEnd.load(ordering: .relaxed)
        while current < end {
            let (exchanged, original) = leaseEnd.compareExchange(
                expected: current, desired: end, ordering: .relaxed)
            if exchanged { break }
            current = original
        }
    }

    /// The time since the recorder was made, on its clock.
    public var now: Duration { start() }

    /// Whether a store's step is kept now: while recording, or always with a flight recorder.
    public var keepsSteps: Bool { flightCapacity > 0 || isRecording }

    /// Starts recording for one more watcher; the returned call stops it (once). The steps kept
    /// stay until the next step kept without a watcher, which makes room within the flight
    /// recorder's bounds: a trace can still be downloaded after its inspector closed.
    public func watch() -> @Sendable () -> Void {
        watchers.add(1, ordering: .relaxed)
        let stopped = Atomic<Bool>(false)
        return { [self] in
            guard !stopped.exchange(true, ordering: .relaxed) else { return }
            watchers.subtract(1, ordering: .relaxed)
        }
    }

    /// Records an event on `lane` if recording is on; `text` is described only then. Its cause is
    /// `cause`, else the task's (`TapCause.current`).
    public func record(
        _ lane: String, _ kind: TapEvent.Kind, _ text: @autoclosure () -> String = "", cause: Int? = nil
    ) {
        guard isRecording else { return }
        let event = TapEvent(
            lane: lane, kind: kind, text: Self.shortened(text()), at: start(), cause: cause ?? Self.currentCause)
        ring.withLock { $0.append(event) }
        log?(event)
    }

    /// The events kept, oldest first.
    public var events: [TapEvent] { ring.withLock { $0.inOrder } }

    /// Events recorded since the recorder was made, including those the ring no longer keeps.
    public var recorded: Int { ring.withLock { $0.recorded } }

    /// Keeps a store's step for the trace (its `StoreTrace` checked `keepsSteps`), within the
    /// step count and the byte budgets (the trace's while recording, else the flight recorder's):
    /// older steps go to make room, and a step that no room can be made for is counted but not kept.
    func record(_ step: TraceStep) {
        var step = step
        let cost = step.bytes
        let (capacity, budget) = isRecording ? (traceCapacity, traceBudget) : (flightCapacity, flightBudget)
        steps.withLock { log in
            log.recorded += 1
            step.number = log.recorded
            guard capacity > 0, cost <= budget else { return }
            log.makeRoom(capacity: capacity, budget: budget, cost: cost, releasingTo: sharedBudget)
            if let sharedBudget {
                while !sharedBudget.reserve(cost) {
                    guard !log.elements.isEmpty else { return }
                    log.dropOldest(releasingTo: sharedBudget)
                }
            }
            // Grown by a quarter at most, one step at a time while small: a session's flight
            // recorder keeps a few steps, and an array doubling its room would keep room for as
            // many again in every session.
            if log.elements.count == log.elements.capacity {
                log.elements.reserveCapacity(min(capacity, log.elements.count + max(1, log.elements.count / 4)))
            }
            log.elements.append(step)
            log.bytes += cost
        }
    }

    /// The store steps kept, oldest first: the session's trace.
    public var traceSteps: [TraceStep] { steps.withLock { $0.elements } }

    /// What the kept steps weigh (`TraceStep.bytes`).
    public var traceBytes: Int { steps.withLock { $0.bytes } }

    /// Steps recorded since the recorder was made, including those the ring no longer keeps.
    public var recordedSteps: Int { steps.withLock { $0.recorded } }

    /// The task's cause (`TapCause.current`), nil for none.
    static var currentCause: Int? {
        let cause = TapCause.current
        return cause == 0 ? nil : cause
    }

    /// A number for the next input while recording (1, 2, …), else 0: what `TapCause` carries.
    public func nextCause() -> Int {
        guard isRecording else { return 0 }
        return steps.withLock { log in
            log.causes += 1
            return log.causes
        }
    }

    /// Notes that `version` of the session's output, replacing `targets`, was the work of the
    /// task's cause (while recording, when it has one).
    public func noteCause(ofVersion version: Int, targets: @autoclosure () -> [String]) {
        guard isRecording, let cause = Self.currentCause else { return }
        let note = VersionCause(version: version, cause: cause, targets: targets())
        steps.withLock { log in
            if log.versions.count == Self.versionsKept { log.versions.removeFirst() }
            log.versions.append(note)
        }
    }

    /// What caused `version` of the session's output, if it is among the newest noted.
    public func cause(ofVersion version: Int) -> VersionCause? {
        steps.withLock { log in log.versions.last { $0.version == version } }
    }

    /// The task's cause as a page says it: "Change 3: build.input change(color: Sky)", from the
    /// input it was recorded with; nil without a cause (or once the ring has let its input go).
    public func causeDescription() -> String? {
        guard let cause = Self.currentCause else { return nil }
        let input = ring.withLock { $0.elements.first { $0.cause == cause && $0.lane.hasSuffix(".input") } }
        return input.map { "Change \(cause): \($0.lane) \($0.text)" }
    }

    /// The versions `cause` made, oldest first.
    public func versions(causedBy cause: Int) -> [VersionCause] {
        steps.withLock { log in log.versions.filter { $0.cause == cause } }
    }

    /// Turns "Highlight updates" on or off: while on the recorder records (one watcher, however
    /// often it is turned on), so that each change has a cause a patch can name.
    public func highlight(_ on: Bool) {
        guard highlighted.exchange(on, ordering: .relaxed) != on else { return }
        if on { watchers.add(1, ordering: .relaxed) } else { watchers.subtract(1, ordering: .relaxed) }
    }

    /// Whether "Highlight updates" is on.
    public var isHighlighting: Bool { highlighted.load(ordering: .relaxed) }

    /// A number for a new store of this recorder's session: 1, 2, …
    func nextInstance() -> Int {
        instances.add(1, ordering: .relaxed).newValue
    }

    /// `text` cut to `textLimit` characters, with control characters (a newline in a form value)
    /// shown as spaces so that one event is one line.
    static func shortened(_ text: String) -> String {
        var cleaned = String(
            text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        if cleaned.count > textLimit { cleaned = String(cleaned.prefix(textLimit - 1)) + "…" }
        return cleaned
    }
}

/// A store's or a stream's place in a recorder: the recorder and the name its lanes start with.
public struct Tap: Sendable {
    public let recorder: TapRecorder
    public let name: String

    public init(_ recorder: TapRecorder, _ name: String) {
        self.recorder = recorder
        self.name = name
    }

    /// Records on the lane `name.suffix` (caused by `cause`, else by the task's).
    public func record(
        _ suffix: String, _ kind: TapEvent.Kind, _ text: @autoclosure () -> String = "", cause: Int? = nil
    ) {
        guard recorder.isRecording else { return }
        recorder.record("\(name).\(suffix)", kind, text(), cause: cause)
    }
}

/// The bytes every session's trace may weigh together (`TapRecorder`'s `sharedBudget`): recording,
/// which any visitor can turn on, cannot take the shop's memory, however many sessions record.
public final class TraceBudget: Sendable {
    public let limit: Int
    private let used = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Takes `bytes` if they fit under the limit; false (taking nothing) otherwise.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while current + bytes <= limit {
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .relaxed)
    }

    /// The bytes taken now.
    public var inUse: Int { used.load(ordering: .relaxed) }
}
