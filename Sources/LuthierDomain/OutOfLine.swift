/// An optional part that is large and mostly absent, kept behind one reference: a struct that
/// holds it pays one word for it inline, and nothing more while it is absent.
///
/// Every session keeps several values inline for as long as it lives (its stored snapshot, its
/// combined output); most sessions never check out, and a checkout inline would cost each of
/// those values its whole size (a checkout's snapshot is 344 bytes, its output 360). Out of line,
/// it costs 8 bytes until there is one.
///
/// The value is compared, hashed, encoded and decoded as the optional itself: a property written
/// `@OutOfLine var checkout: CheckoutSnapshot?` is stored as before (absent when nil) and equal
/// when its values are.
@propertyWrapper
public struct OutOfLine<Wrapped: Sendable>: Sendable {
    /// Immutable, so sharing it between copies of the struct (and threads) is sharing a value.
    private final class Box: Sendable {
        let value: Wrapped

        init(_ value: Wrapped) {
            self.value = value
        }
    }

    private var box: Box?

    public init(wrappedValue: Wrapped?) {
        box = wrappedValue.map(Box.init)
    }

    public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map(Box.init) }
    }
}

extension OutOfLine: Equatable where Wrapped: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.wrappedValue == rhs.wrappedValue
    }
}

extension OutOfLine: Hashable where Wrapped: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}

extension OutOfLine: Encodable where Wrapped: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension OutOfLine: Decodable where Wrapped: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Wrapped.self))
    }
}

// A synthesized `Codable` encodes a wrapped property as its wrapper, which is never nil: these
// keep such a property as the optional it wraps, its key absent when it is nil (as stored before
// the property was moved out of line) and an absent key read as nil.

extension KeyedEncodingContainer {
    public mutating func encode<Wrapped: Encodable>(_ value: OutOfLine<Wrapped>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}

extension KeyedDecodingContainer {
    public func decode<Wrapped: Decodable>(_ type: OutOfLine<Wrapped>.Type, forKey key: Key) throws
        -> OutOfLine<Wrapped>
    {
        OutOfLine(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
    }
}
