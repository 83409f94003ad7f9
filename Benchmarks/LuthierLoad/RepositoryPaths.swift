import Foundation

/// Where the repository and the luthier binary are.
///
/// The tool serves the repository's own `Public/` and `Templates/`, found from this source file's
/// path (three levels up) or, if the binary was moved elsewhere, from the current directory.
/// The server binary defaults to the `luthier` built next to this tool, so a debug tool drives a
/// debug server and a release tool a release one.
enum RepositoryPaths {
    static func root() -> URL? {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return [fromSource, current].first { url in
            FileManager.default.fileExists(atPath: url.appendingPathComponent("Public").path)
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("Templates").path)
        }
    }

    static func defaultLuthierBinary() -> String {
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let ownPath =
            FileManager.default.fileExists(atPath: own.path) ? own : URL(fileURLWithPath: CommandLine.arguments[0])
        return ownPath.deletingLastPathComponent().appendingPathComponent("luthier").path
    }
}
