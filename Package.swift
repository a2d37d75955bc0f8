// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "DragGallery",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "GridEngine", targets: ["GridEngine"]),
        .executable(name: "gallery", targets: ["Gallery"]),
        .executable(name: "engine-cli", targets: ["EngineCLI"]),
        .executable(name: "grid-bench", targets: ["GridBench"]),
        .executable(name: "gallery-bench", targets: ["GalleryBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The brain of the collection view. Standard library only: it must build under Embedded Swift.
        // Test support (SeedReplay, state digests) only in debug builds; engine.wasm never has it.
        .target(name: "GridEngine", swiftSettings: [.define("ENGINE_TEST_SUPPORT", .when(configuration: .debug))]),
        // Flat-buffer command surface over the engine; compiled natively and into engine.wasm.
        .target(name: "EngineBridge", dependencies: ["GridEngine"],
                swiftSettings: [.define("ENGINE_TEST_SUPPORT", .when(configuration: .debug))]),
        // Native command line around the bridge: demo and the native side of the wasm parity test.
        .executableTarget(name: "EngineCLI", dependencies: ["GridEngine", "EngineBridge"]),
        // Release-mode benchmarks of the engine (see BENCHMARKS.md).
        .executableTarget(name: "GridBench", dependencies: ["GridEngine"]),

        // libvips through pkg-config (Debian: libvips-dev).
        .systemLibrary(name: "CVips", path: "Sources/CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // Zstandard through pkg-config (Debian: libzstd-dev): the columns body for browsers that take zstd.
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // Probe, thumbnail, limits, sample images.
        .target(name: "Imaging", dependencies: ["CVips"]),
        // A SQLite VFS that writes a transaction's write-ahead log frames in one write (issue 15.3).
        .target(name: "CSQLiteWALBuffer", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The gallery domain: galleries, sections, items, rank keys, operations and versions.
        .target(name: "GalleryCore", dependencies: ["GridEngine"]),
        // Persistence behind one database-access protocol: GRDB (SQLite, WAL; the default) or
        // PostgreSQL (postgres-nio), and content-addressed image files (docs/storage.md).
        .target(name: "GalleryStore", dependencies: [
            "GalleryCore", "CSQLiteWALBuffer",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"), // the C API, for the columnar read
            .product(name: "Crypto", package: "swift-crypto"), // SHA-256 content addresses
        ]),
        // HTTP API, ingestion, live updates, static files.
        .target(name: "GalleryServer", dependencies: [
            "GalleryCore", "GalleryStore", "Imaging", "GridEngine", "CZstd",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "MultipartKit", package: "multipart-kit"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        // The command line: serve, import, export.
        .executableTarget(name: "Gallery", dependencies: [
            "GalleryServer", "GalleryStore", "GalleryCore", "Imaging",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Release-mode server benchmarks (see BENCHMARKS.md, "## Server").
        .executableTarget(name: "GalleryBench", dependencies: [
            "GalleryServer", "GalleryStore", "GalleryCore", "Imaging",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),

        .testTarget(name: "GridEngineTests", dependencies: ["GridEngine", "EngineBridge"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"]),
        // The backends the store tests run on (SQLite, and PostgreSQL from GALLERY_TEST_POSTGRES).
        .target(name: "StoreTestSupport", dependencies: ["GalleryStore"], path: "Tests/StoreTestSupport"),
        .testTarget(name: "GalleryStoreTests", dependencies: ["GalleryStore", "GalleryCore", "StoreTestSupport"]),
        .testTarget(name: "GalleryServerTests", dependencies: [
            "GalleryServer", "GalleryStore", "GalleryCore", "GridEngine", "Imaging", "StoreTestSupport", "CZstd",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            .product(name: "CompressNIO", package: "compress-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
    ]
)
