import ArgumentParser
import Foundation

/// Finds `Public/` and `Templates/` when no flag names them: next to where the command runs, or
/// in the repository this binary was built from, so `swift run luthier` works from anywhere in it.
enum ResourceFolder {
    static func locate(_ name: String, given: String?) throws -> String {
        if let given {
            guard isDirectory(given) else {
                throw ValidationError("The \(name) folder '\(given)' does not exist; pass an existing folder.")
            }
            return given
        }
        let repositoryRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            FileManager.default.currentDirectoryPath + "/" + name,
            repositoryRoot.appendingPathComponent(name).path,
        ]
        guard let found = candidates.first(where: isDirectory) else {
            throw ValidationError(
                "No \(name) folder found (looked in \(candidates.joined(separator: " and "))); pass --\(name.lowercased()) PATH."
            )
        }
        return found
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
