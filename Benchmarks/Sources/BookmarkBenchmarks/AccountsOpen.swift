import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSync
import Foundation
import PixivAPI
import PixivAPITesting

/// `accounts_open_1000`: one `BookmarkHost` with `maximumOpenStores: 100` over 1,000 accounts'
/// journals (fewer for a smaller `--n`), each account touched once per round (`withStore` and its first 30 bookmarks), in
/// the same order every round, so that every touch opens a store and evicts the least recently
/// used one; and what the open stores keep in memory, by the host's estimate and by the
/// process's resident set (measured in a child process, as ``MemoryProbe`` does).
struct AccountsOpen {
    static let bookmarksPerAccount = 1_000
    static let memoryFlag = "--measure-accounts-memory"

    /// 1,000 accounts at `--n 100000`, 10 at the smoke run's `--n 1000`: max(10, n / 100).
    static func accountCount(n: Int) -> Int { max(10, n / 100) }

    /// A tenth of the accounts (100 of 1,000), so that a smaller run evicts as well.
    static func maximumOpenStores(accounts: Int) -> Int { max(1, accounts / 10) }

    let accounts: Int
    let sampling: Sampling
    let scratch: Scratch

    struct Outcome {
        /// One round: every account touched once.
        var round: Figure
        var openStores: Int
        /// `BookmarkHost.residentBytes` after the last round.
        var hostResidentBytes: Int
        var memory: Memory?
        /// How long writing the journals took, untimed, in seconds.
        var writeSeconds: Double
        /// One account's journal.
        var journalBytes: Int
    }

    /// The child's figures: `/proc/self/status` before one round in a fresh process, once the
    /// host holds as many stores as it keeps (none closed yet), and after the round.
    struct Memory {
        var residentBefore: Int
        var peakAfter: Int
        var residentAfter: Int
        var hostResidentBytes: Int
        var openStores: Int
        /// After the first `maximumOpenStores` touches, before the host closed any store.
        var residentBeforeEviction: Int

        var residentDelta: Int { residentAfter - residentBefore }
        var peakDelta: Int { peakAfter - residentBefore }
    }

    func run() async throws -> Outcome {
        let root = try scratch.directory("accounts-open")
        defer { scratch.remove(root) }
        let started = ContinuousClock.now
        try await Self.writeJournals(count: accounts, into: root)
        let writeSeconds = milliseconds(ContinuousClock.now - started) / 1000

        let (host, ids) = try await Self.makeHost(root: root)
        let round = try await sampling.measure {
            try await elapsedMilliseconds { try await Self.touch(ids, in: host) }
        }
        let openStores = await host.openStoreCount
        let resident = await host.residentBytes
        await host.shutdown()

        let memory = try MemoryProbe.childNumbers([Self.memoryFlag, root.path], count: 6).map {
            Memory(residentBefore: $0[0], peakAfter: $0[1], residentAfter: $0[2], hostResidentBytes: $0[3], openStores: $0[4], residentBeforeEviction: $0[5])
        }
        return Outcome(
            round: round, openStores: openStores, hostResidentBytes: resident, memory: memory,
            writeSeconds: writeSeconds, journalBytes: JournalItems.journalBytes(in: root.appendingPathComponent(Self.name(0)))
        )
    }

    /// The child's side: a fresh host over the journals in `root`, one round, then the six
    /// numbers on one line.
    static func runMemoryChild(root: String) async throws {
        let (host, ids) = try await makeHost(root: URL(fileURLWithPath: root, isDirectory: true))
        guard let before = MemoryProbe.statusBytes("VmRSS") else { throw HarnessError("/proc/self/status has no VmRSS") }
        // The stores the host keeps, opened before any is evicted; then the rest of the round.
        let kept = maximumOpenStores(accounts: ids.count)
        try await touch(Array(ids.prefix(kept)), in: host)
        guard let beforeEviction = MemoryProbe.statusBytes("VmRSS") else { throw HarnessError("/proc/self/status has no VmRSS") }
        try await touch(Array(ids.dropFirst(kept)), in: host)
        guard let peak = MemoryProbe.statusBytes("VmHWM"), let after = MemoryProbe.statusBytes("VmRSS") else {
            throw HarnessError("/proc/self/status has no VmHWM")
        }
        print(before, peak, after, await host.residentBytes, await host.openStoreCount, beforeEviction)
        await host.shutdown()
    }

    // MARK: The parts

    static func name(_ number: Int) -> String { String(format: "account-%05d", number) }

    /// Each account's journal as a full sync leaves it: its 1,000 bookmarks (a seed of its
    /// own) in pages of 30, appended straight to `JournalStorage` (no index kept while
    /// writing), at durability `.none`, four accounts at a time.
    static func writeJournals(count: Int, into root: URL) async throws {
        let generator = SyntheticBookmarks()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<count {
                if number >= 4 { try await group.next() }
                group.addTask { try await writeJournal(number, generator: generator, into: root) }
            }
            try await group.waitForAll()
        }
    }

    private static func writeJournal(_ number: Int, generator: SyntheticBookmarks, into root: URL) async throws {
        let directory = root.appendingPathComponent(name(number), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let illusts = generator.illusts(count: bookmarksPerAccount, seed: 10_000 + UInt64(number))
        let rows = generator.indexedBookmarks(illusts, in: .public)
        let storage = try await JournalStorage.open(directory: directory, options: JournalItems.options(.none))
        for start in stride(from: 0, to: rows.count, by: Dataset.batchSize) {
            try await storage.append(rows[start..<min(start + Dataset.batchSize, rows.count)].map(BookmarkChange.upsert))
        }
        try await storage.close()
    }

    /// A host as the README's server makes one (default journal options and clock), with
    /// every account in `root` added; each account's source is a `PixivClient` made when its
    /// store opens, as a server's would be (it never sends a request here).
    static func makeHost(root: URL) async throws -> (BookmarkHost, [AccountID]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix("account-") }.sorted()
        let host = BookmarkHost(configuration: .init(maximumOpenStores: maximumOpenStores(accounts: names.count), egress: .init(seed: 1)))
        let pixiv = FakePixiv(userID: 1)
        let token = pixiv.issueAccessToken(lifetime: nil)
        var ids: [AccountID] = []
        for name in names {
            let id = AccountID(name)
            try await host.add(HostedAccount(id: id, directory: root.appendingPathComponent(name, isDirectory: true)) {
                PixivBookmarkSource(client: PixivClient(transport: pixiv, tokens: StaticAccessToken(token)), userID: 1)
            })
            ids.append(id)
        }
        return (host, ids)
    }

    /// One round: each account's first 30 bookmarks, through `withStore`, in order.
    static func touch(_ ids: [AccountID], in host: BookmarkHost) async throws {
        for id in ids {
            let rows = try await host.withStore(id) { await $0.bookmarks(in: .public, limit: 30).count }
            guard rows == 30 else { throw HarnessError("\(id) answered \(rows) bookmarks, not 30") }
        }
    }
}
