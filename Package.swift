// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "BookmarkIndex",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BookmarkIndex", targets: ["BookmarkIndex"]),
        .library(name: "BookmarkSync", targets: ["BookmarkSync"]),
        .library(name: "BookmarkHost", targets: ["BookmarkHost"]),
        .library(name: "PixivAPI", targets: ["PixivAPI"]),
        .library(name: "BookmarkIndexTesting", targets: ["BookmarkIndexTesting"]),
        .executable(name: "bookmarks", targets: ["bookmarks"]),
    ],
    targets: [
        .target(name: "PixivAPI"),
        .target(name: "BookmarkIndex"),
        .target(name: "BookmarkSync", dependencies: ["BookmarkIndex", "PixivAPI"]),
        .target(name: "BookmarkHost", dependencies: ["BookmarkIndex", "BookmarkSync"]),
        .target(
            name: "BookmarkIndexTesting",
            dependencies: ["BookmarkIndex", "BookmarkSync", "PixivAPI"]
        ),
        .executableTarget(
            name: "bookmarks",
            dependencies: ["BookmarkIndex", "BookmarkSync", "PixivAPI", "BookmarkIndexTesting"]
        ),
        .testTarget(
            name: "BookmarkIndexTests",
            dependencies: ["BookmarkIndex", "BookmarkIndexTesting"],
            exclude: ["Fixtures"]  // read from the source tree by path
        ),
        .testTarget(name: "BookmarkSyncTests", dependencies: ["BookmarkSync", "BookmarkIndexTesting"]),
        .testTarget(name: "BookmarkHostTests", dependencies: ["BookmarkHost", "BookmarkSync", "PixivAPI", "BookmarkIndexTesting"]),
        .testTarget(name: "PixivAPITests", dependencies: ["PixivAPI", "BookmarkIndexTesting"]),
        // Runs the built `bookmarks` executable as a process; the dependency makes sure it is built.
        .testTarget(name: "BookmarksCLITests", dependencies: ["bookmarks"]),
    ],
    swiftLanguageModes: [.v6]
)
