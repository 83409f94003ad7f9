/// A value a session's trace may hold: a store's action or state, written to `/inspect/trace`
/// and read back by `luthier replay`.
///
/// Each type says what it holds that must not leave the session (an order's keys), and a trace
/// keeps only the redacted form. There is no default: a new action or state has to say.
public protocol Traceable: Codable, Sendable {
    /// The value with every secret replaced by a placeholder; the same value when it holds none.
    var redacted: Self { get }
    /// About how many bytes the value keeps alive in a recording: what a session's trace budget
    /// counts (`TapRecorder`), so a full cart's states weigh what they hold.
    var traceBytes: Int { get }
}

/// The rough weight of things a trace keeps: a value's own fields, and each line (a guitar and a
/// quantity, or an order's or a checkout's line) it holds.
public enum TraceWeight {
    public static let value = 96
    public static let line = 80
}
