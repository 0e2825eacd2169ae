// swift-tools-version:6.0
import PackageDescription

// The benchmark harness is its own package so that the library's build and tests never need
// anything beyond the toolchain; only this package links the system SQLite, the peer every
// storage figure is compared with. Run it with a release build:
//   swift run -c release --package-path Benchmarks BookmarkBenchmarks [--n 100000] [--json]
let package = Package(
    name: "BookmarkBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BookmarkIndex", path: ".."),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .executableTarget(
            name: "BookmarkBenchmarks",
            dependencies: [
                "CSQLite",
                .product(name: "BookmarkIndex", package: "BookmarkIndex"),
                .product(name: "BookmarkSync", package: "BookmarkIndex"),
                .product(name: "PixivAPI", package: "BookmarkIndex"),
                .product(name: "BookmarkIndexTesting", package: "BookmarkIndex"),
                .product(name: "PixivAPITesting", package: "BookmarkIndex"),
                .product(name: "BookmarkSyncTesting", package: "BookmarkIndex"),
                .product(name: "BookmarkHost", package: "BookmarkIndex"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
