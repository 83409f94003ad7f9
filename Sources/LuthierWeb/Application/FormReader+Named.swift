import Hummingbird
import LuthierDomain
import ServerMachinery

extension FormReader {
    /// The fields of a post whose fields are all among `allowed`, each at most once, by name.
    /// Refuses an unknown field (naming the allowed ones) and a repeated one, so that a form the
    /// server does not understand is never half-read.
    func namedFields(_ allowed: [String], of request: Request) async throws(UserFacingError) -> [String: String] {
        var named: [String: String] = [:]
        for field in try await fields(of: request) {
            guard allowed.contains(field.name) else {
                throw UserFacingError(
                    .unprocessableContent,
                    "Unknown field '\(field.name.prefix(40))'; allowed fields: \(allowed.joined(separator: ", ")).")
            }
            guard named.updateValue(field.value, forKey: field.name) == nil else {
                throw UserFacingError(
                    .unprocessableContent, "Field '\(field.name)' was sent more than once; send it once.")
            }
        }
        return named
    }

    /// An admin's note (`StockAdjustment.note`), or `422` naming the field.
    static func note(_ value: String?, field: String = "note") throws(UserFacingError) -> String {
        guard let note = StockAdjustment.note(value ?? "") else {
            let problem = StockAdjustment.noteProblem(value ?? "") ?? "it is not one"
            throw UserFacingError(
                .unprocessableContent,
                "Field '\(field)' must say why, in 1–\(StockAdjustment.longestNote) characters on one line; \(problem)."
            )
        }
        return note
    }
}
