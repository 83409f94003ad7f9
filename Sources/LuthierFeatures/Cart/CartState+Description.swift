extension CartState: CustomStringConvertible {
    /// The lines and the code, for a tap's one line: "2 lines, 3 guitars, code WELCOME10".
    public var description: String {
        "\(cart.lines.count) lines, \(cart.guitarCount) guitars" + (discount.map { ", code \($0.code)" } ?? "")
    }
}
