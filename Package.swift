// swift-tools-version:6.1
import PackageDescription

// Release-mode hot paths: the engine is compiled with -Ounchecked-free defaults; nothing special.
let package = Package(
    name: "DragGallery",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "GridEngine", targets: ["GridEngine"]),
        .executable(name: "engine-cli", targets: ["EngineCLI"]),
        .executable(name: "grid-bench", targets: ["GridBench"]),
    ],
    dependencies: [
    ],
    targets: [
        // The brain of the collection view. Standard library only: it must build under Embedded Swift.
        .target(name: "GridEngine"),
        // Flat-buffer command surface over the engine; compiled natively and into engine.wasm.
        .target(name: "EngineBridge", dependencies: ["GridEngine"]),
        // Native command line around the bridge: demo and the native side of the wasm parity test.
        .executableTarget(name: "EngineCLI", dependencies: ["GridEngine", "EngineBridge"]),
        // Release-mode benchmarks of the engine (see BENCHMARKS.md).
        .executableTarget(name: "GridBench", dependencies: ["GridEngine"]),
        .testTarget(name: "GridEngineTests", dependencies: ["GridEngine", "EngineBridge"]),
    ]
)
