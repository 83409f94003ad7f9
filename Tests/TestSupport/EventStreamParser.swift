import Foundation

/// One block of a text/event-stream, up to its blank line: an event, a `retry:` hint or a comment.
package struct ReceivedEvent: Sendable, Equatable {
    package var id: String?
    package var event: String?
    package var data: [String] = []
    package var retry: String?
    package var comments: [String] = []

    package init(
        id: String? = nil, event: String? = nil, data: [String] = [], retry: String? = nil, comments: [String] = []
    ) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
        self.comments = comments
    }

    package var isEmpty: Bool { id == nil && event == nil && data.isEmpty && retry == nil && comments.isEmpty }

    /// The `patch` event's payload; fails if this block is anything else.
    package func patch() throws -> Patch {
        guard event == "patch" else { throw NotAPatch(received: self) }
        return try JSONDecoder().decode(Patch.self, from: Data(data.joined(separator: "\n").utf8))
    }

    package struct NotAPatch: Error, CustomStringConvertible {
        package init(received: ReceivedEvent) {
            self.received = received
        }

        package let received: ReceivedEvent
        package var description: String { "Expected a patch event, received \(received)" }
    }
}

/// What a patch event carries.
package struct Patch: Decodable, Sendable, Equatable {
    package struct Item: Decodable, Sendable, Equatable {
        package var target: String
        /// The whole new content of the target; empty when the patch sends a list's `edits`.
        package var html: String
        /// A keyed list's edits, for a page one version behind.
        package var edits: [ListEdit]?

        package init(target: String, html: String, edits: [ListEdit]? = nil) {
            self.target = target
            self.html = html
            self.edits = edits
        }

        enum CodingKeys: String, CodingKey { case target, html, edits = "items" }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            target = try container.decode(String.self, forKey: .target)
            edits = try container.decodeIfPresent([ListEdit].self, forKey: .edits)
            html = try edits == nil ? container.decode(String.self, forKey: .html) : ""
        }
    }

    /// One edit of a keyed list: the item `id` put (its outer HTML) after `after` (first for
    /// nil), or removed.
    package struct ListEdit: Decodable, Sendable, Equatable {
        package var id: String
        package var after: String?
        package var html: String?
        package var remove: Bool?
        /// Whether the edit says where the item goes (a put; `after` nil means first), rather
        /// than replacing a part of an item where it stands.
        package var isPut = false

        enum CodingKeys: String, CodingKey { case id, after, html, remove }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            isPut = container.contains(.after)
            after = try container.decodeIfPresent(String.self, forKey: .after)
            html = try container.decodeIfPresent(String.self, forKey: .html)
            remove = try container.decodeIfPresent(Bool.self, forKey: .remove)
        }

        package var isRemoval: Bool { remove == true }

        package init(id: String, after: String? = nil, html: String? = nil, remove: Bool? = nil, isPut: Bool = false) {
            self.id = id
            self.after = after
            self.html = html
            self.remove = remove
            self.isPut = isPut
        }
    }

    package var fragments: [Item]
    /// What the change says of itself (the input that caused it), while its session highlights
    /// updates.
    package var note: String?

    package var targets: [String] { fragments.map(\.target) }

    package func html(_ target: String) -> String? { fragments.first { $0.target == target }?.html }

    package init(fragments: [Item], note: String? = nil) {
        self.fragments = fragments
        self.note = note
    }
}

/// Incremental text/event-stream parsing (WHATWG HTML, "Server-sent events"): bytes in, blocks out.
package struct EventStreamParser: Sendable {
    package init() {}

    private var pending: [UInt8] = []
    private var current = ReceivedEvent()
    private var ready: [ReceivedEvent] = []

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
        while let newline = pending.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            var end = newline + 1
            if pending[newline] == UInt8(ascii: "\r") {
                // A CR at the very end may be the first half of a CRLF: wait for the next byte.
                guard end < pending.count else { return }
                if pending[end] == UInt8(ascii: "\n") { end += 1 }
            }
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(..<end)
            process(line)
        }
    }

    package mutating func takeEvent() -> ReceivedEvent? {
        ready.isEmpty ? nil : ready.removeFirst()
    }

    private mutating func process(_ line: String) {
        if line.isEmpty {
            if !current.isEmpty { ready.append(current) }
            current = ReceivedEvent()
            return
        }
        if line.hasPrefix(":") {
            current.comments.append(Self.dropOneSpace(line.dropFirst()))
            return
        }
        let field: Substring
        let value: String
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = Self.dropOneSpace(line[line.index(after: colon)...])
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "id": current.id = value
        case "event": current.event = value
        case "data": current.data.append(value)
        case "retry": current.retry = value
        default: break
        }
    }

    private static func dropOneSpace(_ text: Substring) -> String {
        String(text.first == " " ? text.dropFirst() : text)
    }
}
