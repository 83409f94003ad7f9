import Foundation
import SQLMachinery

/// Secrets every instance on the database shares: made once, by whichever instance asks first.
extension PostgreSQLDatabase {
    /// The 32-byte secret stored as `name`, made now (from the system's random source) if none
    /// is stored yet. Instances racing to make it all read the one that was stored first. It is
    /// kept as 64 hex digits.
    ///
    /// - Throws: `WorkshopStoreError.unreadableSecret` when what is stored is not 64 hex digits.
    func sharedSecret(named name: String) async throws -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        let made = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &random)) }
            .joined()
        let stored = try await write(lock: nil) { connection in
            try await connection.run(
                "INSERT INTO shared_secrets (name, secret) VALUES (\(name), \(made)) ON CONFLICT (name) DO NOTHING")
            return try await connection.value("SELECT secret FROM shared_secrets WHERE name = \(name)", as: String.self)
        }
        let hex = Array((stored ?? "").utf8)
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
        guard hex.count == 64, bytes.count == 32 else { throw WorkshopStoreError.unreadableSecret(name: name) }
        return bytes
    }
}
