/// A `GuideOutput` behind one reference, so that a builder's output carries a pointer for the
/// guide rather than the guide's whole output inline. Every session keeps its builder's output
/// (three copies: the shared output, the combined one and the stream's last), and most never open
/// the guide; inline, the optional would cost each of them the size of a `GuideOutput`.
///
/// Immutable: the value is set once, so sharing the reference across threads is safe.
public final class GuideOutputBox: Hashable, Sendable {
    public let value: GuideOutput

    public init(_ value: GuideOutput) {
        self.value = value
    }

    public static func == (lhs: GuideOutputBox, rhs: GuideOutputBox) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
