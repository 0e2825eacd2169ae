// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "BookmarkIndex",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "BookmarkIndex", targets: ["BookmarkIndex"]),
        .library(name: "BookmarkSync", targets: ["BookmarkSync"]),
        .library(name: "BookmarkHost", targets: ["BookmarkHost"]),
        .library(name: "BookmarkScreen", targets: ["BookmarkScreen"]),
        .library(name: "PixivAPI", targets: ["PixivAPI"]),
        .library(name: "BookmarkIndexTesting", targets: ["BookmarkIndexTesting"]),
        .library(name: "PixivAPITesting", targets: ["PixivAPITesting"]),
        .library(name: "BookmarkSyncTesting", targets: ["BookmarkSyncTesting"]),
        .executable(name: "bookmarks", targets: ["bookmarks"]),
    ],
    targets: [
        // The JSON reader and writer and the hashes the journal and the Pixiv client share: an
        // internal module, no product (as swift-collections' InternalCollectionsUtilities).
        .target(name: "BookmarkJSON"),
        .target(name: "PixivAPI", dependencies: ["BookmarkJSON"]),
        .target(name: "BookmarkIndex", dependencies: ["BookmarkJSON"]),
        .target(name: "BookmarkSync", dependencies: ["BookmarkIndex", "BookmarkJSON", "PixivAPI"]),
        .target(name: "BookmarkHost", dependencies: ["BookmarkIndex", "BookmarkSync"]),
        // The Bookmarks screen's @Observable models, for SwiftUI and for servers alike.
        .target(name: "BookmarkScreen", dependencies: ["BookmarkIndex", "BookmarkSync"]),
        // Test kits, split by what they depend on: an app's tests of its storage link the index
        // kit alone, not the engine.
        .target(name: "BookmarkIndexTesting", dependencies: ["BookmarkIndex"]),
        .target(name: "PixivAPITesting", dependencies: ["PixivAPI", "BookmarkIndex", "BookmarkIndexTesting", "BookmarkJSON"]),
        .target(name: "BookmarkSyncTesting", dependencies: ["BookmarkSync", "BookmarkIndexTesting"]),
        .executableTarget(
            name: "bookmarks",
            dependencies: ["BookmarkIndex", "BookmarkJSON", "BookmarkSync", "BookmarkHost", "PixivAPI", "BookmarkIndexTesting", "PixivAPITesting"]
        ),
        .testTarget(
            name: "BookmarkIndexTests",
            dependencies: ["BookmarkIndex", "BookmarkJSON", "BookmarkIndexTesting"],
            exclude: ["Fixtures"]  // read from the source tree by path
        ),
        .testTarget(name: "BookmarkSyncTests", dependencies: ["BookmarkSync", "BookmarkIndexTesting", "PixivAPITesting", "BookmarkSyncTesting"]),
        .testTarget(name: "BookmarkHostTests", dependencies: ["BookmarkHost", "BookmarkSync", "PixivAPI", "BookmarkIndexTesting", "PixivAPITesting", "BookmarkSyncTesting"]),
        .testTarget(name: "BookmarkScreenTests", dependencies: ["BookmarkScreen", "BookmarkSync", "BookmarkIndexTesting", "BookmarkSyncTesting"]),
        .testTarget(name: "PixivAPITests", dependencies: ["PixivAPI", "BookmarkIndexTesting", "PixivAPITesting"]),
        // Runs the built `bookmarks` executable as a process; the dependency makes sure it is built.
        .testTarget(name: "BookmarksCLITests", dependencies: ["bookmarks", "BookmarkIndexTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
