import BookmarkIndex
import BookmarkIndexTesting
import PixivAPITesting
import BookmarkSync
import Foundation
import PixivAPI

let demoSpec = CommandSpec(
    name: "demo",
    summary: "Sync a generated account from the loopback Pixiv simulator, then show its tags, a filtered feed, and works that vanish.",
    options: GeneratedAccount.options + [
        OptionSpec(name: "fast", kind: .flag, help: "Space requests 5 ms apart instead of the real 150 ms."),
        OptionSpec(name: "store", kind: .value(placeholder: "DIR"), help: "Keep the store in DIR (default: a new temporary directory)."),
    ],
    details: """
        Nothing leaves this machine: the simulator listens on 127.0.0.1 and the sync goes through the
        real HTTP client (URLSessionTransport), the sync engine and a journal store, exactly as an app's would.
        """
)

func runDemo(_ arguments: ParsedArguments) async throws -> Int32 {
    let directory = arguments.value("store").map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("bookmarks-demo-\(UUID().uuidString)", isDirectory: true)

    // The simulated Pixiv: a generated account served over HTTP on 127.0.0.1.
    let account = try GeneratedAccount(arguments)
    let seed = account.seed
    let pixiv = FakePixiv(userID: 11_111, public: account.publicIllusts, private: account.privateIllusts)
    let server = try LoopbackServer(serving: pixiv)
    defer { server.stop() }
    print(Terminal.bold("Pixiv simulator") + " at \(server.baseURL.absoluteString): \(account.publicIllusts.count) public and \(account.privateIllusts.count) private bookmarks (seed \(seed)).")

    // The app's side: the real client, the engine and a journal store.
    let configuration = PixivClient.Configuration.local(server.baseURL)
    let transport = URLSessionTransport()
    let tokens = RefreshTokenProvider(
        refreshToken: pixiv.refreshToken, configuration: configuration, transport: transport
    )
    let client = PixivClient(configuration: configuration, transport: transport, tokens: tokens)
    let store = try await BookmarksIndexStore.open(directory: directory)
    var policy = SyncConfiguration()
    if arguments.flag("fast") {
        policy.minimumRequestSpacing = 0.005
        policy.sustainedRequestInterval = 0.005
    }
    // So the second sync below need not wait out the 60 s cooldown.
    policy.deltaCooldown = 0
    let engine = BookmarkSyncEngine(store: store, source: PixivBookmarkSource(client: client, userID: pixiv.userID), configuration: policy)
    print("Store: \(directory.path)")
    print(
        "Syncing both lists, one request at a time: a burst of \(policy.requestBurst) at \(Int(policy.minimumRequestSpacing * 1000)) ms apart, "
            + "then one every \(policy.sustainedRequestInterval) s" + (arguments.flag("fast") ? " (--fast)" : " (under the ~100 requests in 1–2 minutes that trip Pixiv's limit)") + ":"
    )

    let started = Date()
    let finished = await runSyncs([.public, .private], full: false, engine: engine)
    guard finished else {
        try await store.close()
        Terminal.printError("interrupted; the store at \(directory.path) keeps every page synced so far")
        return 130
    }
    let log = pixiv.requests
    let firstRequests = log.count
    // How the budget spent itself: the requests that went out at the floor, then the paced ones.
    let gaps = zip(log, log.dropFirst()).map { $1.timestamp.timeIntervalSince($0.timestamp) }
    let paced = gaps.filter { $0 >= policy.sustainedRequestInterval * 0.9 }.count
    print(String(
        format: "Synced in %.1f s with %d requests: %d at the floor (the burst), %d paced by the sustained budget.",
        Date().timeIntervalSince(started), firstRequests, firstRequests - paced, paced
    ))

    for restrict in Restrict.allCases {
        print()
        printHistogram(await store.tagHistogram(in: restrict, limit: 15), title: "Top 15 tags, \(restrict) (\(await store.count(in: restrict)) bookmarks)")
    }

    let placeholders = await store.count(in: .public, matching: BookmarkFilter(visibility: .vanished))
    print("\n\(placeholders) public bookmarks were placeholders on Pixiv already (deleted or hidden before this index first saw them): kept in their place, left out of feeds.")

    let filter = BookmarkFilter(allOf: ["original", "scenery"])
    let total = await store.count(in: .public, matching: filter)
    print("\n" + Terminal.bold("Public bookmarks tagged original AND scenery") + " (オリジナル, 風景): \(total); the newest 5:")
    for bookmark in await store.bookmarks(in: .public, matching: filter, limit: 5) {
        print("  \(Terminal.accent(bookmark.key.description))  \(Terminal.fit(bookmark.illust.title, columns: 30)) \(bookmark.illust.artistName)")
    }

    // Meanwhile, on the web: two new public bookmarks, and seven works near the top of the list
    // vanish, one for each reason Pixiv has. A delta sees all of it with two requests: the
    // changed first page, and the next, whose cursor proves it has met every new bookmark.
    let vanishing = Array(pixiv.bookmarks(in: .public).prefix(FakePixiv.pageSize - 2).filter(\.isVisible).prefix(PixivIllust.InvisibleReason.allCases.count))
    for (work, reason) in zip(vanishing, PixivIllust.InvisibleReason.allCases) { pixiv.withhold(illustID: work.id, reason: reason) }
    var random = SeededRandom(seed: seed &+ 99)
    let generator = SyntheticBookmarks()
    let newest = (account.publicIllusts.map(\.id).max() ?? 100_000_000) + 1
    for offset in 0..<2 { pixiv.bookmark(generator.illust(id: newest + offset, using: &random), restrict: .public) }
    let before = pixiv.requests.count
    let countBefore = await store.count(in: .public)
    _ = await runSyncs([.public], full: false, engine: engine)
    let deltaRequests = pixiv.requests.count - before
    print("\nSecond sync of the public list (2 new on the web, \(vanishing.count) vanished): a delta, \(deltaRequests) request\(deltaRequests == 1 ? "" : "s"), \(await store.count(in: .public) - countBefore) new bookmarks indexed.")

    print("\n" + Terminal.bold("Vanished since the last sync") + ": Pixiv now sends placeholders for them (no title, no artist, no tags); what the index kept:")
    for work in vanishing {
        guard let kept = await store.bookmark(for: BookmarkKey(illustID: work.id, restrict: .public)) else { continue }
        let reason = kept.illust.vanishReason.map(\.description) ?? "visible"
        let tags = kept.illust.tags.prefix(3).map { tag in tag.translatedName.map { "\(tag.name) (\($0))" } ?? tag.name }.joined(separator: ", ")
        print("  \(Terminal.accent(kept.key.description))  \(Terminal.fit(reason, columns: 15)) \(Terminal.fit(kept.illust.title, columns: 24)) \(Terminal.fit(kept.illust.artistName, columns: 10)) \(Terminal.dim(tags))")
    }
    print(Terminal.dim("  (bookmarks list --vanished --store \(directory.path) lists them, with since when)"))

    try await store.close()
    return 0
}
