import BookmarkIndex
import BookmarkIndexTesting
import BookmarkSyncTesting
@testable import BookmarkSync
import Foundation
import Synchronization
import Testing

/// Shuts `engine` down as an app quitting would (the request in flight answered and written),
/// driving `clock` meanwhile.
func shutDown(_ engine: BookmarkSyncEngine, on clock: TestClock) async {
    let stopping = Task { await engine.shutdown() }
    // Time moves only once the shutdown has begun: a walk asleep until the day's budget
    // allows must not be woken by the drive first.
    while await !engine.isShuttingDown { await Task.yield() }
    _ = await clock.run(whileBusy: { await !engine.isIdle })
    await stopping.value
}

extension BookmarkSyncEngine {
    /// Whether a shutdown has begun.
    var isShuttingDown: Bool { !lifecycle.acceptsWork }
}

/// An illust with a few tags, for tests that spell out their data.
func illust(_ id: Int, tags: [String] = ["tag\(0)"]) -> BookmarkedIllustSnapshot {
    BookmarkedIllustSnapshot(id: id, title: "work \(id)", artistID: id % 97, artistName: "artist", tags: tags.map { ArtworkTag(name: $0) })
}

/// `count` illusts with IDs from `first`, in the order to add them (so the last is the newest).
func illusts(_ first: Int, count: Int) -> [BookmarkedIllustSnapshot] {
    (first..<(first + count)).map { illust($0, tags: ["t\($0 % 5)", "common"]) }
}

/// An engine wired to a fake source and a test clock, over an in-memory store.
struct Harness {
    let clock: TestClock
    let source: FakeBookmarkSource
    let storage: InMemoryStorage
    let store: BookmarksIndexStore
    let engine: BookmarkSyncEngine
    let configuration: SyncConfiguration

    init(
        latency: TimeInterval = 0.05, clock: TestClock = TestClock(), storage: InMemoryStorage = InMemoryStorage(),
        source: FakeBookmarkSource? = nil, configuration: SyncConfiguration = SyncConfiguration()
    ) async throws {
        self.clock = clock
        self.source = source ?? FakeBookmarkSource(clock: clock, latency: latency)
        self.storage = storage
        self.configuration = configuration
        store = try await BookmarksIndexStore(storage: storage)
        engine = BookmarkSyncEngine(store: store, source: self.source, clock: clock, configuration: configuration)
    }

    /// The same account and storage, with a fresh store and engine: an app restart.
    func restarted() async throws -> Harness {
        try await Harness(clock: clock, storage: storage, source: source, configuration: configuration)
    }

    /// Drives the engine until idle; fails the test if it never gets there.
    func run(sourceLocation: SourceLocation = #_sourceLocation) async {
        let finished = await clock.runUntilIdle(engine)
        #expect(finished, "the engine never became idle", sourceLocation: sourceLocation)
    }

    /// Runs `body` in a task and drives the clock until it returns; what it returned (`nil`
    /// if it never did within the clock's steps).
    func driving<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Value? {
        await ClockDriver(clock: clock).driving(body)
    }

    /// Bookmarks works 1 to `count` on the public list and syncs it in full: where a test of
    /// the deltas that follow starts.
    func syncInFull(publicCount count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        source.add(illusts(1, count: count), to: .public)
        await engine.startAutoSync(for: .public)
        await run(sourceLocation: sourceLocation)
    }

    /// The IDs of `restrict`'s list in the index, in server order.
    func indexedIDs(_ restrict: Restrict) async -> [Int] {
        await store.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all)).map(\.illust.id)
    }

    /// The IDs of `restrict`'s list on the fake server, newest first.
    func serverIDs(_ restrict: Restrict) -> [Int] {
        source.illusts(in: restrict).map(\.id)
    }

    /// Syncs both lists fully (auto on a fresh index), to set a scene.
    func syncBoth() async {
        await engine.startAutoSync(for: .public)
        await engine.startAutoSync(for: .private)
        await run()
    }
}

/// Records every status of an engine in the background.
final class StatusRecorder: Sendable {
    private final class Log: Sendable {
        let statuses = Mutex<[SyncStatus]>([])
    }

    private let log = Log()
    private let task: Task<Void, Never>

    init(_ engine: BookmarkSyncEngine) async {
        let stream = await engine.statusUpdates()
        let log = self.log
        task = Task {
            for await status in stream {
                log.statuses.withLock { $0.append(status) }
            }
        }
    }

    /// Waits until the latest recorded status is `status` (the engine's current one), then
    /// returns everything recorded.
    func statuses(upTo status: SyncStatus) async -> [SyncStatus] {
        for _ in 0..<1_000_000 {
            if let last = log.statuses.withLock({ $0.last }), last == status { break }
            await Task.yield()
        }
        return log.statuses.withLock { $0 }
    }

    deinit { task.cancel() }
}

extension ListSyncStatus {
    var progress: SyncProgress? {
        if case .syncing(let progress) = self { return progress }
        return nil
    }

    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }
}

extension Array where Element == FakeBookmarkSource.Request {
    /// Checks the request-stream rules: never two requests at once, and at least `spacing`
    /// between the end of one and the start of the next.
    /// (Dates near 2026 carry about 0.2 µs of precision, hence the tolerance.)
    func checkPacing(spacing: TimeInterval = 0.150, sourceLocation: SourceLocation = #_sourceLocation) {
        for (previous, next) in zip(self, dropFirst()) {
            #expect(next.startedAt >= previous.endedAt, "requests overlap", sourceLocation: sourceLocation)
            #expect(next.startedAt.timeIntervalSince(previous.endedAt) >= spacing - 1e-6,
                    "requests \(previous.endedAt.timeIntervalSince1970) → \(next.startedAt.timeIntervalSince1970) closer than \(spacing) s",
                    sourceLocation: sourceLocation)
        }
    }
}

/// What a simulation needs to check the index's vanished works at the end: which bookmarks' content
/// the index held when the engine was idle (and that never left their list since), so that if
/// they vanish the index must keep that content, and how many works came back that the index had
/// kept as vanished.
struct VanishedWorksOracle {
    private(set) var contentKnown = Set<BookmarkKey>()
    private(set) var keptWhenIdle = Set<BookmarkKey>()
    private(set) var restoredAfterKeeping = 0

    /// The bookmark `key` left its list (unbookmarked, moved): whatever the index knew of it may go.
    mutating func leftList(_ key: BookmarkKey) {
        contentKnown.remove(key)
        keptWhenIdle.remove(key)
    }

    /// The server shows the work of `key` again.
    mutating func restored(_ key: BookmarkKey) {
        if keptWhenIdle.contains(key) { restoredAfterKeeping += 1 }
    }

    /// The engine is idle: notes which rows hold content.
    mutating func observeIdle(_ store: BookmarksIndexStore) async {
        for restrict in Restrict.allCases {
            for row in await store.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all)) where row.illust.isVisible || row.vanishedAt != nil {
                contentKnown.insert(row.key)
                if row.illust.isVisible { keptWhenIdle.remove(row.key) } else { keptWhenIdle.insert(row.key) }
            }
        }
    }

    /// Checks `restrict`'s list against the server's, `truth` (as served, newest first): the same
    /// works in the same order; each visible one exactly as served, with no vanish date; each
    /// vanished one with the server's reason and either its content as served before it vanished
    /// (`content`) with a vanish date, or the server's placeholder and no date; the content for
    /// every bookmark the index once held with content and that never left its list. Returns how
    /// many rows kept content.
    func check(
        _ store: BookmarksIndexStore,
        _ restrict: Restrict,
        truth: [BookmarkedIllustSnapshot],
        content: (Int) -> BookmarkedIllustSnapshot?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Int {
        let rows = await store.bookmarks(in: restrict, matching: BookmarkFilter(visibility: .all))
        #expect(rows.map(\.illust.id) == truth.map(\.id), "\(restrict) list holds the server's bookmarks in its order", sourceLocation: sourceLocation)
        var kept = 0
        for (row, served) in zip(rows, truth) {
            if served.isVisible {
                #expect(row.illust == served && row.vanishedAt == nil, "\(row.key) is as the server serves it", sourceLocation: sourceLocation)
                continue
            }
            #expect(row.illust.vanishReason == served.vanishReason, "\(row.key) vanished for the server's reason", sourceLocation: sourceLocation)
            if let vanishedAt = row.vanishedAt {
                var before = content(row.illust.id)
                before?.vanishReason = served.vanishReason
                #expect(row.illust == before, "\(row.key) keeps the content served before it vanished", sourceLocation: sourceLocation)
                #expect(vanishedAt <= row.lastSeenAt && vanishedAt >= row.firstIndexedAt, sourceLocation: sourceLocation)
                kept += 1
            } else {
                #expect(row.illust == served, "\(row.key), never seen with content, is the server's placeholder", sourceLocation: sourceLocation)
                #expect(!contentKnown.contains(row.key), "\(row.key) lost the content the index had of it", sourceLocation: sourceLocation)
            }
        }
        return kept
    }
}

/// `metadata` as a complete sync of this version leaves it when it has a last full sync: with
/// known ground at the highest of `publicIDs` (tests whose bookmark IDs are their illust IDs).
func withKnownGround(_ metadata: BookmarkIndexMetadata, publicIDs: [Int]) -> BookmarkIndexMetadata {
    guard metadata.lastFullSync != nil, metadata.syncState == nil else { return metadata }
    var record = ListSyncRecord(metadata)
    record.knownGround = .bookmarkID(publicIDs.max() ?? 0)
    return record.stored(in: metadata)
}

/// The most requests that started within any `window` seconds of each other.
func mostWithin(_ window: TimeInterval, of starts: [Date]) -> Int {
    let starts = starts.sorted()
    var most = 0, low = 0
    for high in starts.indices {
        while starts[high].timeIntervalSince(starts[low]) >= window { low += 1 }
        most = max(most, high - low + 1)
    }
    return most
}
