// swift-tools-version: 6.1
import PackageDescription

// Micro-benchmarks of Luthier's hot spots, kept in a package of their own so that the root package's
// build and CI never fetch or compile the benchmark tooling. Run from this folder with
// `swift package --disable-sandbox benchmark`.
let package = Package(
    name: "LuthierMicroBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Luthier", path: "../.."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "LuthierMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "LuthierLibraries", package: "Luthier"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/LuthierMicro",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
