/// A tiny deterministic pseudo-random sequence (SplitMix64) for wood figure.
///
/// Grain should look irregular, but the same guitar must always draw the same picture (byte-equal
/// SVG, stable ETags, reproducible tests), so every wood seeds its own sequence with a constant.
struct SeededRandom: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The next value in `0..<1`.
    mutating func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(UInt64(1) << 53)
    }

    /// The next value in `range`.
    mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + next() * (range.upperBound - range.lowerBound)
    }
}
