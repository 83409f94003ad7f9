import Foundation

/// One story of the workshop journal, as a Hacker-News-compatible API serves it
/// (`{"id","type":"story","by","time","title","url"}`, `time` in Unix seconds).
public struct JournalStory: Hashable, Sendable {
    public var id: Int
    /// "workshop" for a story the workshop wrote by itself, "owner" for one the owner added.
    public var by: String
    public var time: Date
    public var title: String
    public var url: String?

    public init(id: Int, by: String, time: Date, title: String, url: String? = nil) {
        self.id = id
        self.by = by
        self.time = time
        self.title = title
        self.url = url
    }

    /// The story as the shop shows it, whatever source it came from: the owner's rules for a
    /// story applied to one the shop did not write. The title is made one line of at most
    /// `JournalEntry.longestTitle` characters (cut with "…"), and so is the author's name (40); a
    /// link that is not an `http(s)` address (`javascript:`, `data:`, `//host`) is dropped, the
    /// story kept. Nil when no title is left.
    public func asShown() -> JournalStory? {
        guard let title = title.asOneLine(longest: JournalEntry.longestTitle) else { return nil }
        return JournalStory(
            id: id, by: by.asOneLine(longest: 40) ?? "", time: time, title: title,
            url: url.flatMap { JournalEntry.isAllowedLink($0) ? $0 : nil })
    }

    /// Newest first, and by id between stories of the same second: the journal's order.
    public static func isNewer(_ a: JournalStory, _ b: JournalStory) -> Bool {
        a.time != b.time ? a.time > b.time : a.id > b.id
    }
}

extension JournalStory: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, type, by, time, title, url
    }

    /// Reads an item of any Hacker-News-compatible API: a story with an id, a title and a time;
    /// anything else (a comment, a job without a title, a deleted item) is not a story.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decodeIfPresent(String.self, forKey: .type)
        guard type == nil || type == "story" else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "an item of type \(type ?? "") is not a story")
        }
        id = try container.decode(Int.self, forKey: .id)
        by = try container.decodeIfPresent(String.self, forKey: .by) ?? ""
        time = Date(timeIntervalSince1970: TimeInterval(try container.decode(Int.self, forKey: .time)))
        title = try container.decode(String.self, forKey: .title)
        url = try container.decodeIfPresent(String.self, forKey: .url)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode("story", forKey: .type)
        try container.encode(by, forKey: .by)
        try container.encode(Int(time.timeIntervalSince1970.rounded(.down)), forKey: .time)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(url, forKey: .url)
    }
}
