/// Strict `application/x-www-form-urlencoded` parsing into ordered name/value pairs.
///
/// Strict on purpose: a broken percent escape or bytes that are not UTF-8 are reported as a
/// malformed form rather than guessed at, so that what the customer meant is never misread.
public enum URLEncodedForm {
    public static func parse(_ body: String) throws(MalformedForm) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for part in body.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decode(pieces[0])
            let value = pieces.count > 1 ? try decode(pieces[1]) : ""
            guard !name.isEmpty else { throw MalformedForm(reason: "a field has no name") }
            pairs.append((name, value))
        }
        return pairs
    }

    public static func parse(bytes: [UInt8]) throws(MalformedForm) -> [(name: String, value: String)] {
        guard let body = String(validating: bytes, as: UTF8.self) else {
            throw MalformedForm(reason: "the body is not UTF-8")
        }
        return try parse(body)
    }

    package static func decode(_ component: Substring) throws(MalformedForm) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count)
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(UInt8.init(hexDigit:)),
                    let low = iterator.next().flatMap(UInt8.init(hexDigit:))
                else {
                    throw MalformedForm(reason: "a percent escape is not two hex digits")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw MalformedForm(reason: "a percent-encoded value is not UTF-8")
        }
        return decoded
    }
}

/// Why a form body could not be read as `application/x-www-form-urlencoded`.
public struct MalformedForm: Error, Equatable, Sendable {
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    /// The sentence the customer reads.
    public var message: String { "The form could not be read: \(reason)." }
}
