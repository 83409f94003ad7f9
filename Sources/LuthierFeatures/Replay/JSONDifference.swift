import Foundation

/// Where two values first differ, told the way a person reads a state: a path into their JSON
/// (`.checkout.lines[0].quantity`) and the two values there.
enum JSONDifference {
    static func first<Value: Encodable>(_ recorded: Value, _ replayed: Value) -> (
        path: String, recorded: String, replayed: String
    ) {
        let encoder = SessionTrace.encoder
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let was = try? encoder.encode(recorded), let now = try? encoder.encode(replayed),
            let left = try? JSONSerialization.jsonObject(with: was, options: [.fragmentsAllowed]),
            let right = try? JSONSerialization.jsonObject(with: now, options: [.fragmentsAllowed])
        else {
            return ("", "\(recorded)", "\(replayed)")
        }
        return first(left, right, path: "") ?? (
            "", String(decoding: was, as: UTF8.self), String(decoding: now, as: UTF8.self)
        )
    }

    private static func first(_ left: Any, _ right: Any, path: String) -> (String, String, String)? {
        switch (left, right) {
        case (let left as [String: Any], let right as [String: Any]):
            for key in Set(left.keys).union(right.keys).sorted() {
                guard let was = left[key], let now = right[key] else {
                    return (path + "." + key, left[key].map(text) ?? "absent", right[key].map(text) ?? "absent")
                }
                if let found = first(was, now, path: path + "." + key) { return found }
            }
            return nil
        case (let left as [Any], let right as [Any]):
            for (index, (was, now)) in zip(left, right).enumerated() {
                if let found = first(was, now, path: path + "[\(index)]") { return found }
            }
            guard left.count == right.count else {
                return (path + ".count", "\(left.count)", "\(right.count)")
            }
            return nil
        default:
            let was = text(left)
            let now = text(right)
            return was == now ? nil : (path.isEmpty ? "the state" : path, was, now)
        }
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
