import Foundation
import PostgresNIO

/// Secrets every instance on the database shares: made once, by whichever instance asks first.
extension PostgresStore {
    /// The 32-byte secret stored as `name`, made now (from the system's random source) if none
    /// is stored yet. Instances racing to make it all read the one that was stored first. It is
    /// kept as hex text; PostgreSQL's own `encode` and `decode` convert it.
    func sharedSecret(named name: String) async throws -> [UInt8] {
        var random = SystemRandomNumberGenerator()
        let made = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) })
        return try await connection { connection in
            try await connection.run(
                """
                INSERT INTO shared_secrets (name, secret) VALUES (\(name), encode(\(made), 'hex'))
                ON CONFLICT (name) DO NOTHING
                """, self.logger)
            // Anything but 64 hex digits reads as none, refused below.
            guard
                let stored = try await connection.value(
                    Data?.self,
                    """
                    SELECT CASE WHEN secret ~ '^[0-9a-fA-F]{64}$' THEN decode(secret, 'hex') END
                    FROM shared_secrets WHERE name = \(name)
                    """, self.logger) ?? nil
            else { throw WorkshopStoreError.unreadableSecret(name: name) }
            return Array(stored)
        }
    }
}
