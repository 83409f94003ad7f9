// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Luthier",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "luthier", targets: ["luthier"]),
        .executable(name: "luthier-load", targets: ["luthier-load"]),
        .executable(name: "luthier-floor", targets: ["luthier-floor"]),
        // For the micro-benchmarks in Benchmarks/Micro, a separate package that can only use products.
        .library(
            name: "LuthierLibraries", targets: ["LuthierDomain", "LuthierFeatures", "ServerMachinery", "LuthierWeb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        .target(name: "LuthierDomain"),
        .target(
            name: "LuthierFeatures",
            dependencies: [
                "LuthierDomain",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        // The query layer, which knows nothing of guitars (as sql-kit sits beside its drivers): a
        // statement written once with its values bound, run on SQLite (GRDB) or PostgreSQL
        // (PostgresNIO), group commit, named write locks and notifications between instances.
        .target(
            name: "SQLMachinery",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "LuthierLive",
            dependencies: [
                "LuthierDomain",
                "LuthierFeatures",
                "SQLMachinery",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The web machinery, which knows nothing of guitars (as HummingbirdCore sits beside
        // Hummingbird): the HTTP/1 pipeline and its limits, event streams, gzip bodies, static
        // assets, form decoding, request logs and the log handlers.
        .target(
            name: "ServerMachinery",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "LuthierWeb",
            dependencies: [
                "LuthierDomain",
                "LuthierFeatures",
                "ServerMachinery",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "luthier",
            dependencies: [
                "LuthierDomain",
                "LuthierFeatures",
                "LuthierWeb",
                "LuthierLive",
                "ServerMachinery",
                "SQLMachinery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "luthier-load",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            path: "Benchmarks/LuthierLoad"
        ),
        // The request path's floor for luthier-load: bare Hummingbird, no middleware, bytes from memory.
        .executableTarget(
            name: "luthier-floor",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/HummingbirdFloor"
        ),
        .testTarget(name: "LuthierDomainTests", dependencies: ["LuthierDomain"]),
        // The load tool's own parts (its event-stream reader), tested without a server.
        .testTarget(
            name: "LuthierLoadTests",
            dependencies: [
                "luthier-load",
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LuthierFeaturesTests",
            dependencies: [
                "LuthierFeatures",
                "TestSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(
            name: "SQLMachineryTests",
            dependencies: [
                "SQLMachinery",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LuthierLiveTests",
            dependencies: [
                "LuthierLive",
                "SQLMachinery",
                "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        // What the test targets share: loopback servers and raw HTTP clients, a log capture,
        // seeded randomness, gzip inflation, the event-stream parser, a folder of static files and
        // a virtual clock for the SQLite store's lock waits.
        .target(
            name: "TestSupport",
            dependencies: [
                "ServerMachinery",
                "SQLMachinery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "ServerMachineryTests",
            dependencies: [
                "ServerMachinery",
                "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LuthierWebTests",
            dependencies: [
                "LuthierWeb",
                "ServerMachinery",
                "TestSupport",
                "LuthierLive",
                "SQLMachinery",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // Process-level fault tests: they run the `luthier` binary that `swift build` makes, next to
        // the test binary, and talk to it over HTTP and through its SQLite file.
        .testTarget(
            name: "luthierTests",
            dependencies: [
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
