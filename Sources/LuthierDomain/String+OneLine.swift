import Foundation

extension String {
    /// The most UTF-8 bytes a one-line entry of `longest` characters may take: four a character,
    /// what a letter of any script needs, so that one "character" (a grapheme cluster, which may
    /// stack any number of combining marks) cannot carry kilobytes.
    public static func bytesAllowed(forCharacters longest: Int) -> Int { longest * 4 }

    /// The text as an admin's one-line entry (a stock note, a journal story's title): trimmed,
    /// 1–`longest` characters (and at most four bytes a character) on one line, with no control
    /// or bidirectional-control character; nil when it is not one (`oneLineProblem` says why).
    public func oneLine(longest: Int) -> String? {
        oneLineProblem(longest: longest) == nil ? trimmingCharacters(in: .whitespaces) : nil
    }

    /// Why the text is not a one-line entry of at most `longest` characters, as the end of a
    /// sentence ("it has a line break"); nil when it is one.
    public func oneLineProblem(longest: Int) -> String? {
        let text = trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return "it is empty" }
        if text.contains(where: \.isNewline) { return "it has a line break" }
        if let scalar = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return "it has a control character (\(scalar.codePoint))"
        }
        if let scalar = text.unicodeScalars.first(where: \.isBidirectionalControl) {
            return "it has a bidirectional control character (\(scalar.codePoint)), which would show the text "
                + "in another order than it is written"
        }
        if text.count > longest { return "it has \(text.count) characters" }
        let bytes = text.utf8.count
        let allowed = Self.bytesAllowed(forCharacters: longest)
        if bytes > allowed { return "it takes \(bytes) bytes, over the \(allowed) that \(longest) characters may take" }
        return nil
    }

    /// The text made one line of at most `longest` characters whatever it was: line breaks and
    /// runs of white space become one space, control and bidirectional-control characters go,
    /// and a longer text is cut with "…". Nil when nothing is left. For text the shop shows but
    /// did not write (another source's story titles).
    public func asOneLine(longest: Int) -> String? {
        var kept = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in unicodeScalars {
            if scalar.properties.isWhitespace || scalar.properties.generalCategory == .control {
                if !lastWasSpace { kept.append(" ") }
                lastWasSpace = true
            } else if !scalar.isBidirectionalControl {
                kept.append(scalar)
                lastWasSpace = false
            }
        }
        var text = String(kept).trimmingCharacters(in: .whitespaces)
        if text.count > longest { text = String(text.prefix(longest - 1)) + "…" }
        let allowed = Self.bytesAllowed(forCharacters: longest)
        while text.utf8.count > allowed { text = String(text.dropLast(2)) + "…" }
        return text.isEmpty || text == "…" ? nil : text
    }
}

extension Unicode.Scalar {
    /// The marks that reorder text as it is shown (Unicode's bidirectional controls, UAX #9):
    /// embeddings, overrides, isolates and the implicit marks.
    var isBidirectionalControl: Bool {
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `U+202E`, as a refusal names it.
    var codePoint: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
