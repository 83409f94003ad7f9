import Crypto

extension SessionID {
    /// The key the session is stored under: the SHA-256 of the id, in hex. The database never
    /// holds a cookie value, so a copy of it lets no one into anybody's session.
    public var storageKey: String {
        SHA256.hash(data: Array(cookieValue.utf8)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
