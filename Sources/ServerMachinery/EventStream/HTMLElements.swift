/// The elements of a piece of trusted, well-formed markup (the server's own templates) that carry
/// an `id`, in page order, each with its range of bytes from `<` to the end of its closing tag.
/// It reads UTF-8 bytes: every character it looks for is ASCII.
package struct HTMLElements {
    let html: [UInt8]
    private(set) var ids: [String] = []
    private(set) var ranges: [Range<Int>] = []

    init(_ markup: String) {
        html = Array(markup.utf8)
        let attribute = Array(#" id=""#.utf8)
        var cursor = 0
        while let start = Self.find(attribute, in: html, from: cursor),
            let close = html[(start + attribute.count)...].firstIndex(of: UInt8(ascii: "\""))
        {
            cursor = close
            guard let open = html[..<start].lastIndex(of: UInt8(ascii: "<")),
                let range = Self.element(startingAt: open, in: html)
            else { continue }
            ids.append(String(decoding: html[(start + attribute.count)..<close], as: UTF8.self))
            ranges.append(range)
        }
    }

    /// The bytes of the element at `index`.
    func bytes(_ index: Int) -> ArraySlice<UInt8> { html[ranges[index]] }

    /// The markup with the elements at `indices` (disjoint, in page order) cut out.
    func bytes(without indices: [Int]) -> [UInt8] {
        var rest: [UInt8] = []
        rest.reserveCapacity(html.count)
        var cursor = 0
        for index in indices {
            rest += html[cursor..<ranges[index].lowerBound]
            cursor = ranges[index].upperBound
        }
        rest += html[cursor...]
        return rest
    }

    /// The element whose start tag begins at `open`, to the end of its closing tag (or of the
    /// start tag, for a void element); elements of the same name inside it are counted.
    package static func element(startingAt open: Int, in html: [UInt8]) -> Range<Int>? {
        let nameStart = open + 1
        var nameEnd = nameStart
        while nameEnd < html.count, isNameByte(html[nameEnd]) { nameEnd += 1 }
        guard nameEnd > nameStart, let startEnd = html[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let name = html[nameStart..<nameEnd]
        if voidElements.contains(where: { $0.elementsEqual(name.lazy.map { $0 | 0x20 }) }) {
            return open..<(startEnd + 1)
        }
        let closing = [UInt8(ascii: "<"), UInt8(ascii: "/")] + name + [UInt8(ascii: ">")]
        var depth = 0
        var cursor = open
        while let next = html[cursor...].firstIndex(of: UInt8(ascii: "<")) {
            if html[next...].starts(with: closing) {
                depth -= 1
                if depth == 0 { return open..<(next + closing.count) }
                cursor = next + closing.count
            } else {
                let after = next + 1 + name.count
                if html[(next + 1)...].starts(with: name), after < html.count,
                    html[after] == UInt8(ascii: " ") || html[after] == UInt8(ascii: ">")
                {
                    depth += 1
                }
                cursor = next + 1
            }
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func find(_ needle: [UInt8], in html: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= html.count else { return nil }
        var index = start
        while index + needle.count <= html.count {
            guard let candidate = html[index...].firstIndex(of: first), candidate + needle.count <= html.count else {
                return nil
            }
            if html[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private static let voidElements = ["img", "input", "br", "hr", "meta", "link", "source", "wbr"].map {
        Array($0.utf8)
    }
}
