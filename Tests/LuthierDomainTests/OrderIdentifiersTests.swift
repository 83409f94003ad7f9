import LuthierDomain
import Testing

/// A generator that repeats a fixed sequence, so that the identifiers drawn from it are known.
struct FixedSequenceGenerator: RandomNumberGenerator {
    var values: [UInt64]
    var index = 0

    mutating func next() -> UInt64 {
        defer { index += 1 }
        return values[index % values.count]
    }
}

@Suite("Order identifiers")
struct OrderIdentifiersTests {
    @Test("an order number is LU- and six characters a phone call cannot confuse")
    func numbers() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let number = Order.newNumber(using: &generator)
            #expect(number.hasPrefix("LU-"))
            #expect(number.count == 9)
            #expect(number.dropFirst(3).allSatisfy { Order.numberAlphabet.contains($0) })
        }
        #expect(Order.numberAlphabet.count == 32)
        #expect(!Order.numberAlphabet.contains { "01OI".contains($0) })
    }

    @Test("numbers and keys follow from the generator alone (a seeded one gives the same again)")
    func deterministic() {
        var first = FixedSequenceGenerator(values: [7, 1 << 40, 123_456_789, .max])
        var second = first
        #expect(Order.newNumber(using: &first) == Order.newNumber(using: &second))
        #expect(Order.newAccessKey(using: &first) == Order.newAccessKey(using: &second))
    }

    @Test("an access key is 128 bits as 32 lowercase hex digits, zero-padded")
    func accessKeys() {
        var small = FixedSequenceGenerator(values: [0x1, 0xABC])
        #expect(Order.newAccessKey(using: &small) == "0000000000000001" + "0000000000000abc")
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<200).map { _ in Order.newAccessKey(using: &generator) }
        #expect(keys.allSatisfy { $0.count == 32 && $0.allSatisfy { "0123456789abcdef".contains($0) } })
        #expect(Set(keys).count == keys.count)
    }
}
