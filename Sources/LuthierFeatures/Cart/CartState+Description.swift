extension CartState: CustomStringConvertible {
    /// The lines and the code, for a tap's one line: "2 lines, 3 guitars, code WELCOME10".
    public var description: String {
        let lines = cart.lines.count
        let guitars = cart.guitarCount
        return "\(lines) line\(lines == 1 ? "" : "s"), \(guitars) guitar\(guitars == 1 ? "" : "s")"
            + (discount.map { ", code \($0.code)" } ?? "")
    }
}
