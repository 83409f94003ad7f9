extension BinaryInteger {
    /// "1,988": the magnitude's digits with thousands grouped by commas, as every shown count and
    /// price in the shop reads (English grouping, whatever the server's locale).
    public var groupedDigits: String {
        let digits = String(describing: magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (self < 0 ? "-" : "") + grouped
    }
}
