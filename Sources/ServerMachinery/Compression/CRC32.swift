/// CRC-32 as gzip's trailer carries it (IEEE 802.3, reflected, polynomial 0xEDB88320), over bytes
/// and over parts joined: a page compressed in pieces once is sent as one gzip stream whose
/// checksum is put together per answer from the pieces' own, without reading them again.
package enum CRC32 {
    private static let polynomial: UInt32 = 0xEDB8_8320

    private static let table: [UInt32] = (0..<256).map { byte in
        var crc = UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ polynomial : crc >> 1 }
        return crc
    }

    /// The checksum of `bytes`; with `previous`, of the bytes whose checksum that is followed by
    /// `bytes` (the register goes on where it stopped).
    package static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        var value = ~previous
        for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        return ~value
    }

    /// The checksum of two parts joined, from the parts' checksums and the second part's length
    /// (zlib's `crc32_combine`): appending bytes is a linear map on the first checksum, the
    /// product of the maps of appending 2^k zero bytes for each bit k of the length, kept ready.
    package static func combine(_ first: UInt32, _ second: UInt32, secondLength length: Int) -> UInt32 {
        var crc = first
        var remaining = length
        var power = 0
        while remaining > 0 {
            if remaining & 1 == 1 { crc = times(zeroBytes[power], crc) }
            remaining >>= 1
            power += 1
        }
        return crc ^ second
    }

    /// Appending a part of one length, made once and applied to many checksums: a cached page's
    /// part after its version is the same for every answer, so the map of appending it is the
    /// product of `zeroBytes` for each bit of its length, multiplied out once per page; per answer
    /// it is one product of a matrix and a vector, where `combine` would make up to one per bit.
    package struct Appending: Sendable {
        private let matrix: [UInt32]
        package let length: Int

        package init(length: Int) {
            var matrix = (0..<32).map { UInt32(1) << $0 }
            var remaining = length
            var power = 0
            while remaining > 0 {
                if remaining & 1 == 1 { matrix = matrix.map { CRC32.times(CRC32.zeroBytes[power], $0) } }
                remaining >>= 1
                power += 1
            }
            self.matrix = matrix
            self.length = length
        }

        /// The checksum of a part with checksum `first` followed by a part of `length` bytes with
        /// checksum `second`: `combine(first, second, secondLength: length)`.
        package func combine(_ first: UInt32, _ second: UInt32) -> UInt32 {
            CRC32.times(matrix, first) ^ second
        }
    }

    /// The maps (32×32 matrices over GF(2), a column per bit) of appending 1, 2, 4, … zero bytes.
    private static let zeroBytes: [[UInt32]] = {
        // One zero bit is the CRC register's step; three squarings make a byte.
        var matrix = [UInt32](repeating: 0, count: 32)
        matrix[0] = polynomial
        for bit in 1..<32 { matrix[bit] = 1 << (bit - 1) }
        for _ in 0..<3 { matrix = square(matrix) }
        var powers = [matrix]
        for _ in 1..<(Int.bitWidth - 1) {
            matrix = square(matrix)
            powers.append(matrix)
        }
        return powers
    }()

    private static func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
        var sum: UInt32 = 0
        var vector = vector
        var index = 0
        while vector != 0 {
            if vector & 1 == 1 { sum ^= matrix[index] }
            vector >>= 1
            index += 1
        }
        return sum
    }

    private static func square(_ matrix: [UInt32]) -> [UInt32] { matrix.map { times(matrix, $0) } }
}
