/// A value kept on the heap, behind one reference: what a struct holds that is large and mostly
/// absent, so that its inline size pays 8 bytes for it rather than the whole value.
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
