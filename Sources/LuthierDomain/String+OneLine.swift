extension String {
    /// The text as an admin's one-line entry (a stock note, a journal story's title): trimmed,
    /// 1–`longest` characters on one line, no control characters; nil when it is not one.
    public func oneLine(longest: Int) -> String? {
        let text = trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= longest, !text.contains(where: \.isNewline),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return text
    }
}
