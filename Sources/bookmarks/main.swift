import BookmarkIndex
import BookmarkIndexTesting
import Foundation

// Until the sync engine and the simulator land, `demo` indexes a generated account in memory
// and prints what an app would show: the top tags of each list and a filtered feed.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.first == "demo" else {
    FileHandle.standardError.write(Data("usage: bookmarks demo\n".utf8))
    exit(2)
}

let generator = SyntheticBookmarks()
let store = try BookmarksIndexStore(storage: InMemoryStorage())
for (restrict, count, seed) in [(Restrict.public, 3_000, UInt64(1)), (.private, 600, 2)] {
    let illusts = generator.illusts(count: count, seed: seed, firstIllustID: restrict == .public ? 100_000_000 : 90_000_000)
    let rows = generator.indexedBookmarks(illusts, in: restrict)
    for page in stride(from: 0, to: rows.count, by: 30) {
        try await store.upsert(Array(rows[page..<min(page + 30, rows.count)]))
    }
    print("Indexed \(await store.count(in: restrict)) \(restrict) bookmarks (generated, seed \(seed)).")
}

for restrict in Restrict.allCases {
    print("\nTop tags, \(restrict):")
    let top = await store.tagHistogram(in: restrict, limit: 10)
    let widest = top.first?.count ?? 1
    for tag in top {
        let label = tag.translatedName.map { "\(tag.name) (\($0))" } ?? tag.name
        let bar = String(repeating: "█", count: max(1, tag.count * 30 / widest))
        print("  \(label.padding(toLength: 34, withPad: " ", startingAt: 0)) \(bar) \(tag.count)")
    }
}

let filter = BookmarkFilter(allOf: ["original", "girl"])
let total = await store.count(in: .public, matching: filter)
print("\nPublic bookmarks tagged original AND girl: \(total); newest 5:")
for bookmark in await store.bookmarks(in: .public, matching: filter, limit: 5) {
    print("  \(bookmark.key)  \(bookmark.illust.title) — \(bookmark.illust.artistName)")
}
