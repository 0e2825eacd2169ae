import BookmarkIndex
import BookmarkSync
import Foundation
import Synchronization

/// A clock whose sleeps return at once, moving `now` to the deadline: the engine's rate-limit
/// spacing costs no wall time, so what is timed is the engine's own work.
final class InstantClock: SyncClock {
    private let current = Mutex(Date(timeIntervalSince1970: 1_780_000_000))

    var now: Date { current.withLock { $0 } }

    func sleep(until deadline: Date) async throws {
        current.withLock { now in now = max(now, deadline) }
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { now in now += seconds }
    }
}

/// An in-process bookmark source serving a fixed list (newest first) in pages of 30, with the
/// page's offset as its token, and counting the requests it answers.
///
/// This is not FakePixiv over HTTP (not on this branch), and not `FakeBookmarkSource` either:
/// that one builds its list with an O(n) search and insert per added work and answers every page
/// by filtering the whole list, which is fine for tests but takes minutes to set up and
/// dominates the timing at 100,000 bookmarks. Serving a page here is O(page), so the figure is
/// the engine's and the store's time, without JSON decoding or networking.
final class PagedSource: BookmarkSource {
    private let illusts: [BookmarkedIllustSnapshot]
    private let pageSize: Int
    private let counts = Mutex((pages: 0, totals: 0))

    init(illusts: [BookmarkedIllustSnapshot], pageSize: Int = 30) {
        self.illusts = illusts
        self.pageSize = pageSize
    }

    /// How many requests (pages and totals) the source has answered.
    var requestCount: Int { counts.withLock { $0.pages + $0.totals } }

    /// How many page requests the source has answered.
    var pageCount: Int { counts.withLock { $0.pages } }

    func firstPage(of restrict: Restrict) async throws -> BookmarkPage {
        page(at: 0, of: restrict)
    }

    func nextPage(_ token: String, of restrict: Restrict) async throws -> BookmarkPage {
        guard let offset = Int(token) else {
            throw BookmarkSyncError(.other, "PagedSource: malformed page token \"\(token)\".")
        }
        return page(at: offset, of: restrict)
    }

    func totalCount(of restrict: Restrict) async throws -> Int? {
        counts.withLock { $0.totals += 1 }
        return restrict == .public ? illusts.count : 0
    }

    private func page(at offset: Int, of restrict: Restrict) -> BookmarkPage {
        counts.withLock { $0.pages += 1 }
        guard restrict == .public, offset < illusts.count else { return BookmarkPage(illusts: [], nextPage: nil) }
        let end = min(offset + pageSize, illusts.count)
        return BookmarkPage(illusts: Array(illusts[offset..<end]), nextPage: end < illusts.count ? String(end) : nil)
    }
}

/// Item 6: the sync engine over an in-process source with an instant clock.
struct SyncItems {
    let dataset: Dataset
    let sampling: Sampling
    let scratch: Scratch

    struct Outcome {
        /// Engine time per page fetched, in milliseconds.
        var perPage: Figure
        var pages: Int
        /// Requests made by a delta sync right after a full sync, with nothing changed.
        var deltaRequests: Int
    }

    /// Per sample: a fresh store (durability `.none`, so the figure is the engine's and the
    /// store's work, not the disk's; durable writes are item 1) and a full sync of the whole
    /// public list. After the last sample, a delta sync with nothing changed.
    func run() async throws -> Outcome {
        let source = PagedSource(illusts: dataset.illusts)
        var pages = 0
        var last: (engine: BookmarkSyncEngine, store: BookmarksIndexStore, clock: InstantClock, directory: URL)?
        let total = try await sampling.measure {
            if let last {
                try await last.store.close()
                scratch.remove(last.directory)
            }
            let directory = try scratch.directory("sync")
            let store = try BookmarksIndexStore(directory: directory, options: JournalItems.options(.none))
            let clock = InstantClock()
            let engine = BookmarkSyncEngine(store: store, source: source, clock: clock)
            last = (engine, store, clock, directory)
            let before = source.pageCount
            let elapsed = try await elapsedMilliseconds {
                let outcome = await engine.startAutoSync(for: .public)
                guard outcome == .started else { throw HarnessError("a full sync on an empty store did not start: \(outcome)") }
                await engine.waitUntilIdle()
            }
            let indexed = await store.count(in: .public)
            guard indexed == dataset.count else {
                throw HarnessError("the full sync indexed \(indexed) bookmarks, not \(dataset.count)")
            }
            pages = source.pageCount - before
            return elapsed
        }

        guard let last else { throw HarnessError("no sync sample ran") }
        last.clock.advance(by: last.engine.configuration.deltaCooldown + 1)
        let before = source.requestCount
        let outcome = await last.engine.startAutoSync(for: .public)
        guard outcome == .started else { throw HarnessError("the delta sync did not start: \(outcome)") }
        await last.engine.waitUntilIdle()
        let deltaRequests = source.requestCount - before
        try await last.store.close()
        scratch.remove(last.directory)
        return Outcome(perPage: total.scaled(by: 1 / Double(max(pages, 1))), pages: pages, deltaRequests: deltaRequests)
    }
}

/// A harness step that could not do what it measures.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
