import Foundation

/// Where two values differ, told the way a person reads a state: a path into their JSON
/// (`.checkout.lines[0].quantity`) and the two values there.
public enum JSONDifference {
    /// One place two values differ.
    public struct Change: Sendable, Hashable {
        public let path: String
        public let before: String
        public let after: String
    }

    /// The first place `recorded` and `replayed` differ (the replay's verdict).
    static func first<Value: Encodable>(_ recorded: Value, _ replayed: Value) -> (
        path: String, recorded: String, replayed: String
    ) {
        guard let (left, right) = objects(recorded, replayed) else {
            return ("", "\(recorded)", "\(replayed)")
        }
        guard let change = changes(left, right, path: "", limit: 1).first else {
            return ("", text(left), text(right))
        }
        return (change.path, change.before, change.after)
    }

    /// Every place `before` and `after` differ, at most `limit` (the inspector's step diff: only
    /// the fields that changed, each with its value before and after).
    public static func changes(from before: some Encodable, to after: some Encodable, limit: Int = 40) -> [Change] {
        guard let (left, right) = objects(before, after) else { return [] }
        return changes(left, right, path: "", limit: limit)
    }

    private static func objects(_ left: some Encodable, _ right: some Encodable) -> (Any, Any)? {
        let encoder = SessionTrace.encoder
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let was = try? encoder.encode(left), let now = try? encoder.encode(right),
            let left = try? JSONSerialization.jsonObject(with: was, options: [.fragmentsAllowed]),
            let right = try? JSONSerialization.jsonObject(with: now, options: [.fragmentsAllowed])
        else { return nil }
        return (left, right)
    }

    private static func changes(_ left: Any, _ right: Any, path: String, limit: Int) -> [Change] {
        var found: [Change] = []
        func add(_ more: [Change]) { found.append(contentsOf: more.prefix(limit - found.count)) }
        switch (left, right) {
        case (let left as [String: Any], let right as [String: Any]):
            for key in Set(left.keys).union(right.keys).sorted() where found.count < limit {
                guard let was = left[key], let now = right[key] else {
                    let before = left[key].map(text) ?? "absent"
                    add([Change(path: path + "." + key, before: before, after: right[key].map(text) ?? "absent")])
                    continue
                }
                add(changes(was, now, path: path + "." + key, limit: limit - found.count))
            }
        case (let left as [Any], let right as [Any]):
            for (index, (was, now)) in zip(left, right).enumerated() where found.count < limit {
                add(changes(was, now, path: path + "[\(index)]", limit: limit - found.count))
            }
            if left.count != right.count, found.count < limit {
                add([Change(path: path + ".count", before: "\(left.count)", after: "\(right.count)")])
            }
        default:
            let was = text(left)
            let now = text(right)
            if was != now { add([Change(path: path.isEmpty ? "the state" : path, before: was, after: now)]) }
        }
        return found
    }

    /// A JSON value as one line.
    private static func text(_ value: Any) -> String {
        guard JSONSerialization.isValidJSONObject(value) else {
            if let string = value as? String { return "\"\(string)\"" }
            return "\(value)"
        }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
