extension UInt8 {
    /// The value of one ASCII hex digit (either case), for percent-decoding; nil for any other byte.
    package init?(hexDigit byte: UInt8) {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self = byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
