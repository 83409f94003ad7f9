extension Guitar: CustomStringConvertible {}

extension GuitarChange: CustomStringConvertible {
    /// The fields a post set, as the customer named them: "color: Sky, body: Koa".
    public var description: String {
        let fields: [String?] = [
            shape.map { "shape: \($0.name)" }, color.map { "color: \($0.name)" }, body.map { "body: \($0.name)" },
            fretboard.map { "fretboard: \($0.name)" },
        ]
        let set = fields.compactMap { $0 }
        return set.isEmpty ? "nothing" : set.joined(separator: ", ")
    }
}
