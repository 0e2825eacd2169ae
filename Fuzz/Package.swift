// swift-tools-version:6.0
import PackageDescription

// Fuzz targets for BookmarkIndex, in a package of their own: they link libFuzzer (from the
// toolchain), which the library must not. Build with one sanitizer option,
// `-Xswiftc -sanitize=fuzzer,address` (see README.md here, or run ./run).
let package = Package(
    name: "BookmarkFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "BookmarkIndex", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver for Swift.
        .target(name: "CFuzzDriver"),
        .executableTarget(
            name: "Fuzz",
            dependencies: [
                "CFuzzDriver",
                .product(name: "BookmarkIndex", package: "BookmarkIndex"),
                .product(name: "BookmarkSync", package: "BookmarkIndex"),
                .product(name: "PixivAPI", package: "BookmarkIndex"),
                .product(name: "BookmarkIndexTesting", package: "BookmarkIndex"),
                .product(name: "PixivAPITesting", package: "BookmarkIndex"),
                .product(name: "BookmarkSyncTesting", package: "BookmarkIndex"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
