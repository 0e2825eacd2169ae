// swift-tools-version:6.0
import PackageDescription

// The benchmark harness is its own package so that the library's build and tests never need
// anything beyond the toolchain. Run it with a release build:
//   swift run -c release --package-path Benchmarks BookmarkBenchmarks
let package = Package(
    name: "BookmarkBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BookmarkIndex", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "BookmarkBenchmarks",
            dependencies: [
                .product(name: "BookmarkIndex", package: "BookmarkIndex"),
                .product(name: "BookmarkIndexTesting", package: "BookmarkIndex"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
