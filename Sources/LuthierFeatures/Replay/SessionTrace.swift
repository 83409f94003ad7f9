import Foundation
import LuthierDomain

/// A session's trace: the actions its stores applied while it was recorded, each with the states
/// before and after it, as `GET /inspect/trace` writes it and `luthier replay` reads it.
///
/// JSON, documented in docs/architecture.md ("The trace format"). It names no session and holds no key:
/// orders are redacted (`Order.redacted`), and the only discount codes it carries are those the
/// customer typed, which the replay needs to answer them the same way.
public struct SessionTrace: Sendable, Codable {
    /// The format written now; a reader refuses any other.
    public static let currentFormat = 1

    public var format: Int
    /// The shop's codes that the traced session typed (matched or expired): the cart's replay
    /// is told of these and no others.
    public var discounts: [DiscountCode]
    /// Steps the session recorded that the bounded ring no longer held when the trace was written:
    /// the trace starts later than the recording did.
    public var dropped: Int
    /// Oldest first.
    public var steps: [TraceStep]

    /// The trace of `steps`, carrying the codes among `shopCodes` that those steps typed.
    public init(steps: [TraceStep], dropped: Int = 0, shopCodes: [DiscountCode]) {
        format = Self.currentFormat
        self.steps = steps
        self.dropped = dropped
        let typed = steps.compactMap { step -> DiscountCode? in
            guard case .applyDiscount(let code) = step.action as? CartFeature.Action else { return nil }
            return CartFeature.code(typed: code, among: shopCodes)
        }
        discounts = shopCodes.filter(typed.contains)
    }

    /// A trace read from its JSON.
    public init(json: Data) throws {
        let decoded = try Self.decoder.decode(SessionTrace.self, from: json)
        guard decoded.format == Self.currentFormat else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [],
                    debugDescription:
                        "This trace is in format \(decoded.format); this luthier reads format \(Self.currentFormat)."
                ))
        }
        self = decoded
    }

    /// The trace as JSON, keys sorted so that two traces compare line by line.
    public func json() throws -> Data {
        try Self.encoder.encode(self)
    }

    /// How a trace writes its values (the inspector shows a state the same way).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }

    /// As `encoder`, on one line.
    static var compactEncoder: JSONEncoder {
        let encoder = encoder
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }
}

extension TraceStep: Codable {
    private enum CodingKeys: String, CodingKey {
        case number, store, instance, at, date, origin, action, before, after, refusal, cause
    }

    /// How to read the action and the states of each store a trace may name.
    private struct StoreValues: Sendable {
        let action: @Sendable (KeyedDecodingContainer<CodingKeys>) throws -> any Traceable
        let state: @Sendable (KeyedDecodingContainer<CodingKeys>, CodingKeys) throws -> (any Traceable)?

        static func of<Action: Traceable, State: Traceable>(_: Action.Type, _: State.Type) -> Self {
            Self(
                action: { try $0.decode(Action.self, forKey: .action) },
                state: { try $0.decodeIfPresent(State.self, forKey: $1) })
        }
    }

    private static let stores: [String: StoreValues] = [
        BuildFeature.traceName: .of(BuildAction.self, BuildState.self),
        CartFeature.traceName: .of(CartFeature.Action.self, CartState.self),
        CheckoutFeature.traceName: .of(CheckoutFeature.Action.self, CheckoutState.self),
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let store = try container.decode(String.self, forKey: .store)
        guard let values = Self.stores[store] else {
            throw DecodingError.dataCorruptedError(
                forKey: .store, in: container,
                debugDescription: "store must be one of \(Self.stores.keys.sorted().joined(separator: ", ")).")
        }
        let number = try Self.count(container.decode(Int.self, forKey: .number), .number, in: container)
        let instance = try Self.count(container.decode(Int.self, forKey: .instance), .instance, in: container)
        let at = try container.decode(Int64.self, forKey: .at)
        // A step kept in memory holds its time in nanoseconds (64 bits: 292 years).
        guard (0...Int64.max / 1_000_000).contains(at) else {
            throw DecodingError.dataCorruptedError(
                forKey: .at, in: container,
                debugDescription: "at must be milliseconds from 0 to \(Int64.max / 1_000_000).")
        }
        let date = try container.decode(Date.self, forKey: .date)
        let origin = try container.decode(Origin.self, forKey: .origin)
        let action = try values.action(container)
        guard let before = try values.state(container, .before) else {
            throw DecodingError.keyNotFound(
                CodingKeys.before,
                .init(codingPath: container.codingPath, debugDescription: "A step needs its state before."))
        }
        let after = try values.state(container, .after)
        let refusal = try container.decodeIfPresent(String.self, forKey: .refusal)
        let cause = try container.decodeIfPresent(Int.self, forKey: .cause).map {
            try Self.count($0, .cause, in: container)
        }
        guard (after == nil) != (refusal == nil) else {
            throw DecodingError.dataCorruptedError(
                forKey: .after, in: container, debugDescription: "A step has either a state after or a refusal.")
        }
        self.init(
            store: store, instance: instance, at: .milliseconds(at), date: date, origin: origin, action: action,
            kept: TracedState(before), keptAfter: after.map { TracedState($0) }, refusal: refusal)
        self.number = number
        self.cause = cause
    }

    /// A step's number, cause or store instance: counted from 1 in its session, and kept in 32 bits.
    private static func count(_ value: Int, _ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>) throws
        -> Int
    {
        guard (0...Int(UInt32.max)).contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(key.stringValue) must be from 0 to \(UInt32.max).")
        }
        return value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(store, forKey: .store)
        try container.encode(instance, forKey: .instance)
        try container.encode(at.milliseconds, forKey: .at)
        try container.encode(date, forKey: .date)
        try container.encode(origin, forKey: .origin)
        try container.encode(action, forKey: .action)
        try container.encode(before, forKey: .before)
        if let after { try container.encode(after, forKey: .after) }
        try container.encodeIfPresent(refusal, forKey: .refusal)
        try container.encodeIfPresent(cause, forKey: .cause)
    }
}
