/// A value a session's trace may hold: a store's action or state, written to `/inspect/trace`
/// and read back by `luthier replay`.
///
/// Each type says what it holds that must not leave the session (an order's keys), and a trace
/// keeps only the redacted form. There is no default: a new action or state has to say.
public protocol Traceable: Codable, Sendable {
    /// The value with every secret replaced by a placeholder; the same value when it holds none.
    var redacted: Self { get }
}
