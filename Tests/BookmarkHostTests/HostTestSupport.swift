import BookmarkHost
import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
import BookmarkSync
import Foundation
import Synchronization
import Testing

/// `count` illusts with IDs from `first`, oldest first (the order to add them).
func illusts(_ first: Int, count: Int) -> [BookmarkedIllustSnapshot] {
    (first..<(first + count)).map {
        BookmarkedIllustSnapshot(id: $0, title: "work \($0)", artistID: $0 % 97, artistName: "artist", tags: [ArtworkTag(name: "t\($0 % 5)")])
    }
}

/// A temporary directory removed when the value goes.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("host-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func account(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: true) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Pixiv's limit per address as users report it: `limit` requests within `window` seconds,
/// counted over every account's requests, and a refusal for `penalty` seconds once over.
final class AddressLimit: Sendable {
    private struct State {
        var times: [Date] = []
        var penaltyUntil: Date?
        var refusals = 0
    }

    private let state = Mutex(State())
    let limit: Int
    let window: TimeInterval
    let penalty: TimeInterval

    init(limit: Int = 100, window: TimeInterval = 120, penalty: TimeInterval = 300) {
        self.limit = limit
        self.window = window
        self.penalty = penalty
    }

    /// Counts a request at `now`; whether it is answered (else: Pixiv's rate limit).
    func admit(at now: Date) -> Bool {
        state.withLock { state in
            state.times.removeAll { now.timeIntervalSince($0) >= window }
            state.times.append(now)
            if let until = state.penaltyUntil, now < until {
                state.refusals += 1
                return false
            }
            guard state.times.count > limit else { return true }
            state.penaltyUntil = now + penalty
            state.refusals += 1
            return false
        }
    }

    /// Requests refused so far.
    var refusals: Int { state.withLock { $0.refusals } }

    /// A source fault rule that applies this limit.
    func rule(clock: TestClock) -> @Sendable (FakeBookmarkSource.RequestKind, Restrict) -> BookmarkSyncError? {
        { [self] _, _ in admit(at: clock.now) ? nil : BookmarkSyncError(.rateLimited, "Rate Limit") }
    }
}

/// A host of `count` accounts over fake sources on one test clock, with journals in a
/// temporary directory.
struct HostHarness {
    let clock: TestClock
    let directory: TemporaryDirectory
    let sources: [AccountID: FakeBookmarkSource]
    let host: BookmarkHost
    let ids: [AccountID]

    init(
        accounts count: Int, bookmarks: (Int) -> Int = { _ in 45 }, latency: TimeInterval = 0.2,
        configuration: BookmarkHost.Configuration = BookmarkHost.Configuration(egress: .init(seed: 1)),
        clock: TestClock = TestClock(), directory: TemporaryDirectory? = nil, sources: [AccountID: FakeBookmarkSource]? = nil
    ) async throws {
        self.clock = clock
        self.directory = try directory ?? TemporaryDirectory()
        let ids = (0..<count).map { AccountID("account-\($0)") }
        self.ids = ids
        var made: [AccountID: FakeBookmarkSource] = [:]
        for (number, id) in ids.enumerated() {
            if let existing = sources?[id] {
                made[id] = existing
                continue
            }
            let source = FakeBookmarkSource(clock: clock, latency: latency)
            source.add(illusts(number * 100_000 + 1, count: bookmarks(number)), to: .public)
            made[id] = source
        }
        self.sources = made
        host = BookmarkHost(configuration: configuration, clock: clock)
        for id in ids {
            let source = made[id]!
            try await host.add(HostedAccount(id: id, directory: self.directory.account(id.rawValue)) { source })
        }
    }

    /// The same accounts, sources and directories in a new host: a server restart.
    func restarted(configuration: BookmarkHost.Configuration = BookmarkHost.Configuration(egress: .init(seed: 2))) async throws -> HostHarness {
        try await HostHarness(accounts: ids.count, configuration: configuration, clock: clock, directory: directory, sources: sources)
    }

    /// Drives the clock until every account is idle.
    func run(maxSteps: Int = 5_000_000, sourceLocation: SourceLocation = #_sourceLocation) async {
        let host = self.host
        let idle = await clock.run(whileBusy: { !host.isIdle }, participants: { host.busyAccountCount }, maxSteps: maxSteps)
        #expect(idle, "the host never became idle", sourceLocation: sourceLocation)
    }

    /// The illust IDs of `id`'s public list in its index, in order.
    func indexedIDs(_ id: AccountID) async throws -> [Int] {
        try await host.withStore(id) { store in
            await store.bookmarks(in: .public, matching: BookmarkFilter(visibility: .all)).map(\.illust.id)
        }
    }

    /// The illust IDs of `id`'s public list on its fake server, newest first.
    func serverIDs(_ id: AccountID) -> [Int] {
        sources[id]!.illusts(in: .public).map(\.id)
    }
}

/// Collects a host's or an engine's events in the background.
final class EventLog: Sendable {
    private let events = Mutex<[SyncEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ stream: AsyncStream<SyncEvent>) {
        let collecting = Task { [weak self] in
            for await event in stream { self?.append(event) }
        }
        task.withLock { $0 = collecting }
    }

    private func append(_ event: SyncEvent) { events.withLock { $0.append(event) } }

    /// Everything collected so far.
    var all: [SyncEvent] { events.withLock { $0 } }

    /// Waits (yielding) until at least `count` events satisfy `predicate`.
    func wait(for count: Int = 1, where predicate: (SyncEvent) -> Bool) async -> [SyncEvent] {
        for _ in 0..<100_000 {
            let matching = all.filter(predicate)
            if matching.count >= count { return matching }
            await Task.yield()
        }
        return all.filter(predicate)
    }

    deinit { task.withLock { $0?.cancel() } }
}
