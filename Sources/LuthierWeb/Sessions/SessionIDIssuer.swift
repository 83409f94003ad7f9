import Crypto

/// Issues session ids that the server can later recognise as its own without keeping them: 128
/// random bits followed by the first 128 bits of their HMAC-SHA256 under a key of this process,
/// as 64 hex digits (the shape of every session id).
///
/// A visitor's first page gets such an id in its cookie but no session: a session costs nothing
/// until it acts. Its first post or stream makes the session under that id, and only an id this
/// process issued is adopted, so a forged or planted value never is. After a restart the key is
/// new: an id issued before that never acted is simply replaced (its session held nothing).
/// Instances of one shop on a shared database share one key (kept there), so an id one of them
/// issued is adopted by any.
struct SessionIDIssuer: Sendable {
    /// The key's bytes (`SymmetricKey` is not `Sendable`; a key is made from them for each use).
    private let key: [UInt8]

    /// An issuer signing with `key`, or with a key of its own for nil.
    init(key: [UInt8]? = nil) {
        self.key = key ?? SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    /// A fresh id, signed.
    func issue() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        var random = [UInt8](repeating: 0, count: 16)
        for index in random.indices { random[index] = UInt8.random(in: .min ... .max, using: &generator) }
        // Always 32 bytes, so `?? .random()` is never taken.
        return SessionID(secretBytes: random + signature(of: random)) ?? .random()
    }

    /// Whether this process issued `id`.
    func issued(_ id: SessionID) -> Bool {
        let bytes = id.secretBytes
        let expected = signature(of: Array(bytes[0..<16]))
        // Constant time: how many leading bytes matched must not show in the timing.
        var difference: UInt8 = 0
        for (a, b) in zip(expected, bytes[16..<32]) { difference |= a ^ b }
        return difference == 0
    }

    private func signature(of random: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: random, using: SymmetricKey(data: key))).prefix(16).map { $0 }
    }
}
