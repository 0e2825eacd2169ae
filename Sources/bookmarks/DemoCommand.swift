import BookmarkIndex
import BookmarkIndexTesting
import Foundation

let demoSpec = CommandSpec(
    name: "demo",
    summary: "Index a generated account and show its top tags and a filtered feed.",
    options: [
        OptionSpec(name: "seed", kind: .value(placeholder: "N"), help: "Generate the account from seed N (default: 1)."),
        storeOption,
    ]
)

func runDemo(_ arguments: ParsedArguments) async throws -> Int32 {
    let seed = UInt64(try arguments.integer("seed", default: 1, in: 0...Int.max))
    let directory = arguments.value("store").map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-demo-\(UUID().uuidString)", isDirectory: true)
    let generator = SyntheticBookmarks()
    let store = try BookmarksIndexStore(directory: directory)
    for (restrict, count, offset) in [(Restrict.public, 3_000, UInt64(0)), (.private, 600, 1)] {
        let illusts = generator.illusts(count: count, seed: seed &* 2 &+ offset, firstIllustID: restrict == .public ? 100_000_000 : 90_000_000)
        let rows = generator.indexedBookmarks(illusts, in: restrict)
        for page in stride(from: 0, to: rows.count, by: 30) {
            try await store.upsert(Array(rows[page..<min(page + 30, rows.count)]))
        }
        print("Indexed \(await store.count(in: restrict)) \(restrict) bookmarks into \(directory.path).")
    }
    for restrict in Restrict.allCases {
        print()
        printHistogram(await store.tagHistogram(in: restrict, limit: 15), title: "Top 15 tags, \(restrict)")
    }
    let filter = BookmarkFilter(allOf: ["original", "girl"])
    let total = await store.count(in: .public, matching: filter)
    print("\nPublic bookmarks tagged original AND girl: \(total); newest 5:")
    for bookmark in await store.bookmarks(in: .public, matching: filter, limit: 5) {
        print("  \(bookmark.key)  \(bookmark.illust.title) — \(bookmark.illust.artistName)")
    }
    try await store.close()
    return 0
}
