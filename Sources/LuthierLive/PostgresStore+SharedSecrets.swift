import PostgresNIO

/// Secrets every instance on the database shares: made once, by whichever instance asks first.
extension PostgresStore {
    /// The 32-byte secret stored as `name`, made now (from the system's random source) if none
    /// is stored yet. Instances racing to make it all read the one that was stored first.
    func sharedSecret(named name: String) async throws -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        let made = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let hex = made.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        return try await connection { connection in
            try await connection.run(
                "INSERT INTO shared_secrets (name, secret) VALUES (\(name), \(hex)) ON CONFLICT (name) DO NOTHING",
                self.logger)
            guard
                let stored = try await connection.value(
                    String.self, "SELECT secret FROM shared_secrets WHERE name = \(name)", self.logger),
                let bytes = Self.bytes(ofHex: stored), bytes.count == 32
            else { throw WorkshopStoreError.unreadableSecret(name: name) }
            return bytes
        }
    }

    /// The bytes `hex` spells, or nil if it is not hex.
    static func bytes(ofHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
