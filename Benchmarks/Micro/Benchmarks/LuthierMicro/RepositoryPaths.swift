import Foundation

/// Where the root package's folders are, found from this file so that the benchmarks read the real
/// templates and stylesheet wherever the runner starts them.
enum RepositoryPaths {
    /// The root of the Luthier repository (`Benchmarks/Micro/Benchmarks/LuthierMicro/` is five levels down).
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url
    }()

    static var templates: String { root.appendingPathComponent("Templates").path }

    static var publicFolder: String { root.appendingPathComponent("Public").path }
}
