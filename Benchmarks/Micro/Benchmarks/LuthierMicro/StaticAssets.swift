import Benchmark
import Foundation
import LuthierWeb
import NIOCore
import ServerMachinery

/// The gzip path of `Public/`: compressing is paid once per file at start-up, the lookup on every
/// asset request.
func staticAssetBenchmarks() {
    Benchmark(
        "Gzip styles.css",
        configuration: .micro,
        closure: { benchmark, stylesheet in
            for _ in benchmark.scaledIterations {
                blackHole(try StaticAssetCatalog.gzipped(stylesheet))
            }
        },
        setup: {
            let path = RepositoryPaths.publicFolder + "/styles.css"
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw StaticAssetCatalog.LoadError.unreadable(path: path, reason: "the file could not be opened")
            }
            return ByteBuffer(bytes: contents)
        }
    )

    // A browser's request for the stylesheet: find the asset, negotiate, pick the precompressed bytes.
    Benchmark(
        "Static asset lookup (styles.css, gzip)",
        configuration: .micro,
        closure: { benchmark, catalog in
            for _ in benchmark.scaledIterations {
                guard let asset = catalog.asset(forRequestPath: "/styles.css"),
                    let coding = ContentCoding.negotiate(
                        acceptEncoding: "gzip, deflate, br, zstd", gzipAvailable: asset.gzip != nil)
                else { continue }
                blackHole(asset.representation(for: coding))
            }
        },
        setup: { try StaticAssetCatalog(directory: RepositoryPaths.publicFolder) }
    )
}
